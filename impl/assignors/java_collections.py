"""java.util.HashMap and HashSet iteration order, and the Java hash codes Kafka's assignor uses.

Theory of operation
-------------------
Kafka's SimpleAssignor never sorts anything: who is visited first is decided by the iteration
order of HashMaps and HashSets. To reproduce its output bit for bit (impl/assignors/kafka_compat)
this module emulates exactly the parts of OpenJDK 17's ``java.util.HashMap`` that decide that
order, and nothing else:

* A table of ``capacity`` buckets (a power of two). A key with Java hash code ``h`` lives in
  bucket ``spread(h) & (capacity - 1)`` where ``spread(h) = h ^ (h >>> 16)``. Iteration visits
  buckets in ascending order and each bucket's chain from head to tail.
* ``put``/``add`` (and so ``putAll``, ``addAll``, ``HashSet(Collection)``) append a new key at
  the TAIL of its chain, then resize when the size exceeds the threshold
  ``(int)(capacity * 0.75)``. ``computeIfAbsent`` inserts a new key at the HEAD of its chain and
  does not resize afterwards: it resizes *before* looking, whenever the size already exceeds the
  threshold (even when the key turns out to be present).
* A resize doubles the capacity; every chain is split into its low and high halves keeping the
  relative order of its keys. Removing a key unlinks it and reorders nothing.
* A chain that reaches 8 keys (``put``: 9 after the append; ``computeIfAbsent``: 8) in a table
  smaller than 64 buckets makes the table double instead of becoming a tree bin. Real tree bins
  (capacity >= 64 and a chain of 8+) are NOT modelled: :class:`TreeBinError` is raised, so a
  wrong answer can never be returned silently. Kafka's assignor inputs practically never get
  there (it needs eight keys with equal ``hash & (capacity-1)`` in a table of 64+).
* Capacity: ``new HashMap()`` allocates 16 buckets on first insert; ``new HashMap(c)`` allocates
  ``tableSizeFor(c)`` (the smallest power of two >= c, 1 for c <= 1);
  ``new HashSet(collection)`` uses ``max((int)(size / .75f) + 1, 16)``; Kafka's
  ``AssignorHelpers.newHashMap(n)``/``newHashSet(n)`` ask for ``(int)((n + 1) / 0.75f + 1)``.

Keys are ordinary hashable Python values; the Java hash code of a key comes from a function
given to the collection (``string_hash``, ``integer_hash``, ``uuid_hash``,
``topic_id_partition_hash`` below), and key equality is Python equality.

Every rule here was checked against JDK 17 by running the same operation sequences through
java.util.HashMap and comparing iteration orders (tests/test_assignor_kafka_compat.py keeps
hand-checked examples).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable, Iterator
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")

DEFAULT_CAPACITY = 16
MAXIMUM_CAPACITY = 1 << 30
TREEIFY_THRESHOLD = 8
MIN_TREEIFY_CAPACITY = 64

Hasher = Callable[[K], int]


class TreeBinError(NotImplementedError):
    """A chain grew long enough for Java to turn it into a tree bin, which is not emulated."""


# ---------------------------------------------------------------------------------------------
# Java integer and float arithmetic
# ---------------------------------------------------------------------------------------------


def int32(value: int) -> int:
    """Wrap ``value`` to a signed 32-bit Java int."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def int64(value: int) -> int:
    """Wrap ``value`` to a signed 64-bit Java long."""
    value &= 0xFFFFFFFFFFFFFFFF
    return value - (1 << 64) if value >= 1 << 63 else value


def spread(h: int) -> int:
    """HashMap.hash: ``h ^ (h >>> 16)``, as an unsigned 32-bit value ready for masking."""
    u = h & 0xFFFFFFFF
    return u ^ (u >> 16)


def table_size_for(cap: int) -> int:
    """HashMap.tableSizeFor: the smallest power of two >= ``cap`` (1 for cap <= 1)."""
    if cap <= 1:
        return 1
    return min(1 << (cap - 1).bit_length(), MAXIMUM_CAPACITY)


def f32(value: float) -> float:
    """Round a double to the nearest float32, as a Java float operation would.

    One float32 operation (+, -, *, /) on float32 operands equals the same operation done in
    double and then rounded to float32, so float32 arithmetic is emulated that way.
    """
    result: float = struct.unpack("f", struct.pack("f", value))[0]
    return result


def _float_int(value: float) -> int:
    """Java's (int) cast of a float: truncation toward zero (inputs here are small and >= 0)."""
    return int(value)


def helper_capacity(num_mappings: int) -> int:
    """The argument AssignorHelpers.newHashMap/newHashSet pass: ``(int)(((n + 1) / 0.75f) + 1)``.

    Evaluated in float32 like Java: ``(n + 1)`` is an int promoted to float, divided by 0.75f.
    """
    quotient = f32(f32(num_mappings + 1) / 0.75)
    return _float_int(f32(quotient + 1.0))


def hash_set_copy_capacity(size: int) -> int:
    """The capacity HashSet(Collection) asks for: ``max((int)(size / .75f) + 1, 16)``."""
    return max(_float_int(f32(f32(size) / 0.75)) + 1, DEFAULT_CAPACITY)


def _threshold(capacity: int) -> int:
    return _float_int(f32(capacity * 0.75))


# ---------------------------------------------------------------------------------------------
# Java hash codes
# ---------------------------------------------------------------------------------------------


def string_hash(s: str) -> int:
    """String.hashCode: ``s[0]*31^(n-1) + ... + s[n-1]`` over UTF-16 code units, as an int."""
    h = 0
    data = s.encode("utf-16-be", "surrogatepass")
    for k in range(0, len(data), 2):
        h = (31 * h + (data[k] << 8 | data[k + 1])) & 0xFFFFFFFF
    return int32(h)


def integer_hash(i: int) -> int:
    """Integer.hashCode: the value itself."""
    return int32(i)


def uuid_bits(uuid_text: str) -> tuple[int, int]:
    """A UUID string as Kafka's Uuid (most and least significant bits, signed 64-bit)."""
    value = int(uuid_text.replace("-", ""), 16)
    return int64(value >> 64), int64(value)


def uuid_hash(uuid_text: str) -> int:
    """org.apache.kafka.common.Uuid.hashCode: ``x = msb ^ lsb; (int)(x >> 32) ^ (int)x``."""
    msb, lsb = uuid_bits(uuid_text)
    x = msb ^ lsb
    return int32((x >> 32) ^ int32(x))


def topic_id_partition_hash(uuid_hash_code: int, partition: int) -> int:
    """server.common.TopicIdPartition (a record) hashCode on JDK 17: ``31*topicId + partition``."""
    return int32(31 * uuid_hash_code + partition)


# ---------------------------------------------------------------------------------------------
# HashMap and HashSet
# ---------------------------------------------------------------------------------------------


class JavaHashMap(Generic[K, V]):
    """A java.util.HashMap that keeps the bucket/chain structure deciding iteration order.

    ``initial_capacity`` None is ``new HashMap()``; an int ``c`` is ``new HashMap(c)``.
    """

    def __init__(self, hasher: Hasher[K], initial_capacity: int | None = None) -> None:
        self._hasher = hasher
        self._capacity = DEFAULT_CAPACITY if initial_capacity is None else table_size_for(
            initial_capacity)
        self._table: list[list[K]] | None = None
        self._values: dict[K, V] = {}
        self._spread: dict[K, int] = {}

    # -- structure ------------------------------------------------------------------------------

    @property
    def capacity(self) -> int:
        """Buckets in the table (what it will allocate, before the first insert)."""
        return self._capacity

    def _bucket(self, key: K) -> int:
        return self._spread[key] & (self._capacity - 1)

    def _ensure_table(self) -> list[list[K]]:
        if self._table is None:
            self._table = [[] for _ in range(self._capacity)]
        return self._table

    def _resize(self) -> None:
        if self._table is None:
            self._ensure_table()
            return
        old = self._table
        self._capacity = min(self._capacity * 2, MAXIMUM_CAPACITY)
        self._table = [[] for _ in range(self._capacity)]
        for chain in old:
            for key in chain:
                self._table[self._bucket(key)].append(key)

    def _hash_of(self, key: K) -> int:
        h = self._spread.get(key)
        if h is None:
            h = spread(self._hasher(key))
        return h

    def _insert(self, key: K, value: V, *, at_head: bool) -> None:
        table = self._ensure_table()
        self._spread[key] = self._hash_of(key)
        chain = table[self._bucket(key)]
        existing = len(chain)
        if at_head:
            chain.insert(0, key)
        else:
            chain.append(key)
        self._values[key] = value
        treeify = (existing >= TREEIFY_THRESHOLD) if not at_head else (
            existing >= TREEIFY_THRESHOLD - 1)
        if treeify:
            if self._capacity >= MIN_TREEIFY_CAPACITY:
                raise TreeBinError(f"a chain of {existing + 1} keys at capacity {self._capacity}")
            self._resize()

    # -- Map API --------------------------------------------------------------------------------

    def put(self, key: K, value: V) -> None:
        """Map.put: replace in place, or append at the chain tail and resize past the threshold."""
        if key in self._values:
            self._values[key] = value
            return
        if self._table is None:
            self._ensure_table()
        self._insert(key, value, at_head=False)
        if len(self._values) > _threshold(self._capacity):
            self._resize()

    def compute_if_absent(self, key: K, factory: Callable[[], V]) -> V:
        """Map.computeIfAbsent: resize first if already over the threshold; insert at the head."""
        if self._table is None:
            self._ensure_table()
        elif len(self._values) > _threshold(self._capacity):
            self._resize()
        if key in self._values:
            return self._values[key]
        value = factory()
        self._insert(key, value, at_head=True)
        return value

    def get(self, key: K) -> V | None:
        return self._values.get(key)

    def __getitem__(self, key: K) -> V:
        return self._values[key]

    def __contains__(self, key: object) -> bool:
        return key in self._values

    def __len__(self) -> int:
        return len(self._values)

    def remove(self, key: K) -> bool:
        """Map.remove: unlink the key (True when it was present); nothing is reordered."""
        if key not in self._values:
            return False
        assert self._table is not None
        self._table[self._bucket(key)].remove(key)
        del self._values[key]
        del self._spread[key]
        return True

    def keys(self) -> list[K]:
        """The key iteration order, as a snapshot."""
        if self._table is None:
            return []
        return [k for chain in self._table for k in chain]

    def items(self) -> list[tuple[K, V]]:
        """The entry iteration order, as a snapshot (values are live objects)."""
        return [(k, self._values[k]) for k in self.keys()]

    def __iter__(self) -> Iterator[K]:
        return iter(self.keys())


class JavaHashSet(Generic[K]):
    """A java.util.HashSet: a JavaHashMap whose values are ignored.

    ``initial_capacity`` None is ``new HashSet()``; an int is ``new HashSet(c)``. Use
    :meth:`copy_of` for ``new HashSet(collection)``.
    """

    def __init__(self, hasher: Hasher[K], initial_capacity: int | None = None) -> None:
        self._map: JavaHashMap[K, None] = JavaHashMap(hasher, initial_capacity)
        self.hasher = hasher

    @classmethod
    def copy_of(cls, hasher: Hasher[K], elements: Iterable[K]) -> JavaHashSet[K]:
        """``new HashSet<>(collection)``: sized from the collection, then ``add`` in its order."""
        items = list(elements)
        result = cls(hasher, hash_set_copy_capacity(len(items)))
        for item in items:
            result.add(item)
        return result

    def add(self, key: K) -> bool:
        """Set.add: True when the key was new (appended at its chain tail)."""
        if key in self._map:
            return False
        self._map.put(key, None)
        return True

    def remove(self, key: K) -> bool:
        return self._map.remove(key)

    def __contains__(self, key: object) -> bool:
        return key in self._map

    def __len__(self) -> int:
        return len(self._map)

    def order(self) -> list[K]:
        """The iteration order, as a snapshot."""
        return self._map.keys()

    def __iter__(self) -> Iterator[K]:
        return iter(self.order())

    @property
    def capacity(self) -> int:
        return self._map.capacity
