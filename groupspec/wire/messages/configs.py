"""Configuration: DescribeConfigs (32) and IncrementalAlterConfigs (44).

A group's own settings (resource type GROUP, 32: its session timeout, heartbeat interval, share
record lock duration, ...) are set with IncrementalAlterConfigs and read back with
DescribeConfigs; a broker's (resource type BROKER, 4) are read the same way, which lets a
conformance run check the settings a vector assumes instead of taking Kafka's defaults.
"""

from __future__ import annotations

from dataclasses import dataclass

from groupspec.types.records.schema import kfield, message

#: Resource types (Kafka's ConfigResource.Type ids).
RESOURCE_TOPIC, RESOURCE_BROKER, RESOURCE_GROUP = 2, 4, 32
#: IncrementalAlterConfigs operations (AlterConfigOp.OpType ids).
OP_SET, OP_DELETE, OP_APPEND, OP_SUBTRACT = 0, 1, 2, 3


@message("DescribeConfigsRequest", "request", 32, "1-4", "4+")
@dataclass(frozen=True, slots=True)
class DescribeConfigsRequest:
    @dataclass(frozen=True, slots=True)
    class DescribeConfigsResource:
        resource_type: int = kfield("int8", "0+")
        resource_name: str = kfield("string", "0+")
        configuration_keys: tuple[str, ...] | None = kfield("[]string", "0+", nullable="0+")

    resources: tuple[DescribeConfigsResource, ...] = kfield("[]struct", "0+", struct=DescribeConfigsResource)
    include_synonyms: bool = kfield("bool", "1+", default=False)
    include_documentation: bool = kfield("bool", "3+", default=False)


@message("DescribeConfigsResponse", "response", 32, "1-4", "4+")
@dataclass(frozen=True, slots=True)
class DescribeConfigsResponse:
    @dataclass(frozen=True, slots=True)
    class DescribeConfigsResult:
        @dataclass(frozen=True, slots=True)
        class DescribeConfigsResourceResult:
            @dataclass(frozen=True, slots=True)
            class DescribeConfigsSynonym:
                name: str = kfield("string", "1+")
                value: str | None = kfield("string", "1+", nullable="0+")
                source: int = kfield("int8", "1+")

            name: str = kfield("string", "0+")
            value: str | None = kfield("string", "0+", nullable="0+")
            read_only: bool = kfield("bool", "0+")
            config_source: int = kfield("int8", "1+", default=-1, ignorable=True)
            is_sensitive: bool = kfield("bool", "0+")
            synonyms: tuple[DescribeConfigsSynonym, ...] = kfield(
                "[]struct", "1+", ignorable=True, struct=DescribeConfigsSynonym
            )
            config_type: int = kfield("int8", "3+", default=0, ignorable=True)
            documentation: str | None = kfield("string", "3+", nullable="0+", ignorable=True)

        error_code: int = kfield("int16", "0+")
        error_message: str | None = kfield("string", "0+", nullable="0+")
        resource_type: int = kfield("int8", "0+")
        resource_name: str = kfield("string", "0+")
        configs: tuple[DescribeConfigsResourceResult, ...] = kfield(
            "[]struct", "0+", struct=DescribeConfigsResourceResult
        )

    throttle_time_ms: int = kfield("int32", "0+")
    results: tuple[DescribeConfigsResult, ...] = kfield("[]struct", "0+", struct=DescribeConfigsResult)


@message("IncrementalAlterConfigsRequest", "request", 44, "0-1", "1+")
@dataclass(frozen=True, slots=True)
class IncrementalAlterConfigsRequest:
    @dataclass(frozen=True, slots=True)
    class AlterConfigsResource:
        @dataclass(frozen=True, slots=True)
        class AlterableConfig:
            name: str = kfield("string", "0+")
            config_operation: int = kfield("int8", "0+")
            value: str | None = kfield("string", "0+", nullable="0+")

        resource_type: int = kfield("int8", "0+")
        resource_name: str = kfield("string", "0+")
        configs: tuple[AlterableConfig, ...] = kfield("[]struct", "0+", struct=AlterableConfig)

    resources: tuple[AlterConfigsResource, ...] = kfield("[]struct", "0+", struct=AlterConfigsResource)
    validate_only: bool = kfield("bool", "0+")


@message("IncrementalAlterConfigsResponse", "response", 44, "0-1", "1+")
@dataclass(frozen=True, slots=True)
class IncrementalAlterConfigsResponse:
    @dataclass(frozen=True, slots=True)
    class AlterConfigsResourceResponse:
        error_code: int = kfield("int16", "0+")
        error_message: str | None = kfield("string", "0+", nullable="0+")
        resource_type: int = kfield("int8", "0+")
        resource_name: str = kfield("string", "0+")

    throttle_time_ms: int = kfield("int32", "0+")
    responses: tuple[AlterConfigsResourceResponse, ...] = kfield(
        "[]struct", "0+", struct=AlterConfigsResourceResponse
    )
