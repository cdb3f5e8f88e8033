"""Pieces of tests/clients/fuzz_diff.py, the randomized differential tester."""
