"""L2-regularised logistic regression for the benches that fit a model (numpy only): one fitter, one predictor."""

from __future__ import annotations

import numpy as np

NEWTON_STEPS = 50


def fit(x: np.ndarray, y: np.ndarray, c: float) -> np.ndarray:
    """Intercept and weights minimising the log loss plus ||w||² / (2c) (the intercept is not penalised), by
    Newton's method."""
    a = np.hstack([np.ones((len(x), 1)), x])
    w = np.zeros(a.shape[1])
    penalty = np.full(a.shape[1], 1.0 / c)
    penalty[0] = 0.0
    for _ in range(NEWTON_STEPS):
        p = 1.0 / (1.0 + np.exp(-a @ w))
        grad = a.T @ (p - y) + penalty * w
        hess = (a * (p * (1 - p))[:, None]).T @ a + np.diag(penalty)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-10:
            break
    return w


def predict(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The fitted model's probability for each row of ``x``."""
    return 1.0 / (1.0 + np.exp(-(w[0] + x @ w[1:])))
