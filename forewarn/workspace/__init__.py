"""The workspace: the facade that joins the code index, the memories and the embedder."""
