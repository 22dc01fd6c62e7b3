"""What the tests use to set up and reach the service, and the harness the benchmarks
(bench/) share with them.

The harness is the modules bench/ imports: ``ports`` (free ports), ``processes`` (a
process started, waited for with a deadline, stopped), ``waiting`` (waiting for a
condition), ``figures`` (percentiles), ``cpu`` (CPU accounting), ``sse`` (one
Server-Sent Events parser and client), ``webhook_receiver`` (one webhook receiver) and
``push_service`` (a Web Push service that verifies and decrypts what it is sent).
They live here, beside the tests' other helpers, because the tests use them too and a
benchmark is the tests' kind of code, never the product's; and they import no pytest,
so a benchmark runs without the test runner (tests/test_harness.py checks it). The
other modules (``postgres``, ``serve``, ``workers``, ...) are pytest fixtures and
helpers for the tests alone.
"""
