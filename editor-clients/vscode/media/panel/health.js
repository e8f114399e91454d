// The Health page's one script (loaded with the page's nonce): its buttons and the window choice go to the
// extension as messages; it builds no HTML and runs nothing it is sent.
(function () {
  "use strict";
  const vscode = acquireVsCodeApi();
  document.addEventListener("click", (event) => {
    const target = event.target instanceof Element ? event.target.closest("button") : null;
    if (!target) {
      return;
    }
    if (target.id === "refresh") {
      vscode.postMessage({ command: "refresh" });
    } else if (target.classList.contains("open") && target.dataset.uri) {
      vscode.postMessage({ command: "open", uri: target.dataset.uri });
    }
  });
  const since = document.getElementById("since");
  if (since) {
    since.addEventListener("change", () => vscode.postMessage({ command: "since", value: since.value }));
  }
})();
