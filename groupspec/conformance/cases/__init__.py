"""Hand-made cases the conformance vectors are generated from."""
