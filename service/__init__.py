"""The service, split by role: use cases (`usecases/`) with the stores of the state that is not
events (`stores/`), the HTTP API (`api/`), the web pages (`pages/`) and the runtime (`runtime/`)."""
