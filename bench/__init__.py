"""Benchmarks, run on demand by `make bench`; each prints ratios against a baseline run beside it."""
