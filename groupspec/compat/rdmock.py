"""A process holding librdkafka's mock cluster, for `groupspec compat` (groupspec.compat.launchers).

librdkafka starts its mock cluster inside a client given ``test.mock.num.brokers``; the cluster
lives as long as that client. This process makes one producer, asks it for the cluster's metadata
to learn the port the mock chose, prints ``bootstrap HOST:PORT librdkafka X (confluent-kafka Y)``
and then holds the client until its stdin ends or it is sent SIGTERM.
"""

from __future__ import annotations

import sys


def _client_version(module: object) -> str:
    """confluent-kafka's version() is a string in some releases and (string, int) in others."""
    found = module.version()  # type: ignore[attr-defined]
    return str(found if isinstance(found, str) else found[0])


def main() -> int:
    import confluent_kafka

    producer = confluent_kafka.Producer({"test.mock.num.brokers": 1, "bootstrap.servers": ""})
    brokers = list(producer.list_topics(timeout=30).brokers.values())
    if not brokers:
        print("the mock cluster reported no broker", file=sys.stderr)
        return 1
    first = brokers[0]
    print(f"bootstrap {first.host}:{first.port} librdkafka {confluent_kafka.libversion()[0]} mock "
          f"(confluent-kafka {_client_version(confluent_kafka)})", flush=True)
    sys.stdin.buffer.read()  # until the launcher closes our stdin
    return 0


if __name__ == "__main__":
    sys.exit(main())
