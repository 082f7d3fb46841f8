"""The field's real accumulation loops, rewritten from their public sources for the checker's tests.

Each module names the source it follows (repository, file, function) and keeps its calls, their
order and its defaults; none of their code is copied. tests/test_corpus_*.py run them through
gastudy's checkers and assert the verdict an expert gives.
"""
