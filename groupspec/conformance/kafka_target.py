"""``--target kafka``: the vectors answered by Kafka's own classes (issue 18), 4.2.1 by default.

The adapter is a small Java program in the repository (adapters/kafka/, a Maven module) speaking
the JSON-lines protocol. One source tree builds it against each Kafka release of ``VERSIONS``
(``--kafka-version``): src/main/java is shared and src/kafka-<line>/java holds the shims over the
APIs that differ, picked by a Maven profile. It is built on first use, into a cache directory
outside the checkout named by the Kafka version and a digest of its sources, so that an edited
adapter is rebuilt and an unchanged one never is. Maven runs offline first (nothing to fetch once
the jars are in the local repository) and online only when that fails.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from groupspec.types import InputError

#: The adapter's Maven module, beside the package in a checkout (an editable install).
SOURCES = Path(__file__).resolve().parents[2] / "adapters" / "kafka"
MAIN_CLASS = "groupspec.kafka.Adapter"
JAR = "groupspec-kafka-adapter.jar"
#: Seconds Maven may take, online, resolving Kafka's jars the first time.
BUILD_TIMEOUT_S = 900.0
#: The Kafka releases the adapter builds against, each with the Maven profile that selects it
#: (None: the pom's default build); groupspec.kafka_versions says which vectors each answers.
VERSIONS: dict[str, str | None] = {"4.2.1": None, "4.3.1": "kafka-4.3"}
DEFAULT_VERSION = "4.2.1"


class UnknownKafkaVersionError(InputError):
    """``--kafka-version`` names a release the adapter is not built for; ``known`` lists those."""

    def __init__(self, version: str) -> None:
        self.version = version
        self.known = tuple(VERSIONS)
        super().__init__("--kafka-version", f"unknown Kafka version {version!r}; the Kafka adapter "
                         f"builds against {', '.join(self.known)}")


def check_version(version: str) -> str:
    """``version`` when the adapter builds against it, else UnknownKafkaVersionError."""
    if version not in VERSIONS:
        raise UnknownKafkaVersionError(version)
    return version


def cache_root() -> Path:
    """``$GROUPSPEC_CACHE``, else ``$XDG_CACHE_HOME/groupspec``, else ``~/.cache/groupspec``."""
    explicit = os.environ.get("GROUPSPEC_CACHE")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "groupspec"


def sources_digest(sources: Path = SOURCES) -> str:
    """What the build depends on: the pom and every source file, names and bytes."""
    h = hashlib.sha256()
    files = [sources / "pom.xml", *sorted((sources / "src").rglob("*"))]
    for f in files:
        if f.is_file():
            h.update(str(f.relative_to(sources)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def _need(tool: str) -> str:
    found = shutil.which(tool)
    if found is None:
        raise InputError("--target", f"kafka: needs {tool!r} on PATH (Java 17 and Maven build the "
                         "Kafka adapter, adapters/kafka/)")
    return found


def build(sources: Path = SOURCES, cache: Path | None = None,
          version: str = DEFAULT_VERSION) -> Path:
    """The adapter built against Kafka ``version``: its directory (the jar and lib/), building it
    when the cache lacks it."""
    check_version(version)
    if not (sources / "pom.xml").is_file():
        raise InputError("--target", f"kafka: the adapter's sources are not at {sources} (the Kafka "
                         "target needs a checkout of groupspec, not an installed copy)")
    out = (cache or cache_root()) / "kafka-adapter" / f"{version}-{sources_digest(sources)}"
    if (out / JAR).is_file() and (out / "lib").is_dir():
        return out
    mvn = _need("mvn")
    _need("java")
    out.parent.mkdir(parents=True, exist_ok=True)
    # One build at a time (two test processes may ask at once): the second finds the first's.
    with open(out.parent / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (out / JAR).is_file() and (out / "lib").is_dir():
            return out
        _build(mvn, sources, out, VERSIONS[version])
    return out


def _build(mvn: str, sources: Path, out: Path, profile: str | None) -> None:
    print(f"building the Kafka adapter into {out} (Maven; first use only)", file=sys.stderr)
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        work = Path(tmp) / "out"
        failure = ""
        for offline in (True, False):
            argv = [mvn, "-q", "-B", *(["-o"] if offline else []), "-f", str(sources / "pom.xml"),
                    *([f"-P{profile}"] if profile else []), "package", f"-Dadapter.out={work}"]
            try:
                done = subprocess.run(argv, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                failure = f"Maven took over {BUILD_TIMEOUT_S:.0f} s"
                continue
            if done.returncode == 0 and (work / JAR).is_file():
                break
            failure = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        else:
            raise InputError("--target", f"kafka: building the adapter failed:\n{failure}")
        work.rename(out)


def command(built: Path) -> str:
    """The ``cmd:`` program line that runs the built adapter (java expands the lib/* itself)."""
    classpath = f"{built / JAR}{os.pathsep}{built / 'lib' / '*'}"
    return shlex.join([_need("java"), "-cp", classpath, MAIN_CLASS])


def command_paths(program: str) -> tuple[str, ...]:
    """The files a :func:`command` line runs by their absolute paths: ``java``, the adapter's jar
    and its lib folder (a ``dir/*`` entry of the class path as ``dir``). A process that starts
    the adapter elsewhere (a Spark executor on another node) needs each of them at that path."""
    argv = shlex.split(program)
    classpath = argv[argv.index("-cp") + 1].split(os.pathsep) if "-cp" in argv[:-1] else []
    return (argv[0], *(entry.removesuffix(f"{os.sep}*") for entry in classpath))
