"""groupspec's Spark jobs (docs/pipeline.md).

``session`` starts a SparkSession configured for this project, ``sweep`` is the assignor property
sweep and ``report`` renders its self-contained HTML report. Nothing here imports pyspark at
module level: the per-case code runs (and is unit-tested) without Spark, and the CLI can list the
``sweep`` command without paying for a JVM.
"""
