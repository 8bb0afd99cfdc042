"""ApiVersions (key 18): how a client learns which versions a broker accepts."""

from __future__ import annotations

from dataclasses import dataclass

from groupspec.types.records.schema import kfield, message


@message("ApiVersionsRequest", "request", 18, "0-4", "3+")
@dataclass(frozen=True, slots=True)
class ApiVersionsRequest:
    client_software_name: str = kfield("string", "3+", ignorable=True)
    client_software_version: str = kfield("string", "3+", ignorable=True)


@message("ApiVersionsResponse", "response", 18, "0-4", "3+")
@dataclass(frozen=True, slots=True)
class ApiVersionsResponse:
    @dataclass(frozen=True, slots=True)
    class ApiVersion:
        api_key: int = kfield("int16", "0+")
        min_version: int = kfield("int16", "0+")
        max_version: int = kfield("int16", "0+")

    @dataclass(frozen=True, slots=True)
    class SupportedFeatureKey:
        name: str = kfield("string", "3+")
        min_version: int = kfield("int16", "3+")
        max_version: int = kfield("int16", "3+")

    @dataclass(frozen=True, slots=True)
    class FinalizedFeatureKey:
        name: str = kfield("string", "3+")
        max_version_level: int = kfield("int16", "3+")
        min_version_level: int = kfield("int16", "3+")

    error_code: int = kfield("int16", "0+")
    api_keys: tuple[ApiVersion, ...] = kfield("[]struct", "0+", struct=ApiVersion)
    throttle_time_ms: int = kfield("int32", "1+", ignorable=True)
    supported_features: tuple[SupportedFeatureKey, ...] = kfield(
        "[]struct", "3+", tag=0, tagged="3+", ignorable=True, struct=SupportedFeatureKey
    )
    finalized_features_epoch: int = kfield("int64", "3+", default=-1, tag=1, tagged="3+", ignorable=True)
    finalized_features: tuple[FinalizedFeatureKey, ...] = kfield(
        "[]struct", "3+", tag=2, tagged="3+", ignorable=True, struct=FinalizedFeatureKey
    )
    zk_migration_ready: bool = kfield("bool", "3+", default=False, tag=3, tagged="3+", ignorable=True)
