"""`flaglint gate`: JobSet manifests before `kubectl apply`."""
