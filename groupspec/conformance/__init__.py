"""Conformance: language-neutral vectors and the runner that checks a target against them."""
