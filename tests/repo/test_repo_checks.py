"""Checks on the repository itself: the things a reviewer would otherwise have to remember."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import settings

ROOT = Path(__file__).resolve().parents[2]

#: The least exploration each profile may do; lowering a profile below this fails here, so the
#: search cannot shrink silently to make a failure go away.
FLOORS = {"ci": (200, 30), "deep": (5000, 100)}


def test_profiles_do_not_shrink():
    for name, (examples, steps) in FLOORS.items():
        profile = settings.get_profile(name)
        assert profile.max_examples >= examples, name
        assert profile.stateful_step_count >= steps, name


def test_tests_take_budgets_from_profiles():
    offenders = []
    for path in (ROOT / "tests").rglob("*.py"):
        if path.name == "conftest.py":
            continue
        text = path.read_text(encoding="utf-8")
        if re.search(r"max_examples\s*=|stateful_step_count\s*=", text):
            offenders.append(path.name)
    assert offenders == [], "set Hypothesis budgets in tests/conftest.py profiles only"


def test_readme_starts_with_setup_and_test_commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", text, re.S)
    assert "groupspec conformance" in blocks[0]
    assert "pytest" in blocks[1]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "python -m pytest" in ci and "ruff check" in ci and "mypy" in ci


def test_layers_are_subpackages_of_groupspec():
    for layer in ("spec", "impl", "models"):
        link = ROOT / "groupspec" / layer
        assert link.is_symlink() and link.resolve() == (ROOT / layer).resolve(), layer


def test_every_machine_has_a_docs_page_with_a_diagram():
    """One page a machine, named after it, in docs/machines/ (issue 16 item 1)."""
    machines = {p.name for p in (ROOT / "groupspec" / "vectors" / "kafka-4.2").iterdir() if p.is_dir()}
    assert machines >= {"simple_assignor", "classic_group", "share_partition", "share_group",
                        "share_consumer", "records"}
    for machine in machines:
        page = ROOT / "docs" / "machines" / f"{machine}.md"
        assert page.is_file(), page
    for machine in ("simple_assignor", "classic_group", "share_partition", "share_consumer",
                    "classic_consumer"):
        text = (ROOT / "docs" / "machines" / f"{machine}.md").read_text(encoding="utf-8")
        assert "```mermaid" in text, machine


def _imports(path: Path, layer: str) -> bool:
    pattern = rf"^\s*(from|import)\s+groupspec\.{layer}\b"
    return re.search(pattern, path.read_text(encoding="utf-8"), re.M) is not None


def test_spec_and_impl_share_vocabulary_only():
    for path in (ROOT / "spec").rglob("*.py"):
        assert not _imports(path, "impl") and not _imports(path, "models"), path.name
    for path in (ROOT / "impl").rglob("*.py"):
        assert not _imports(path, "spec"), path.name


def test_readme_python_examples_run_and_print_what_their_comments_say(capsys):
    """Each ```python block of README.md runs as written; a `print(...)  # Errors.X` line must
    print exactly that error's name (issue 14: the comment said a name, the code printed 79)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {"__name__": "readme_example"})
        printed = capsys.readouterr().out.splitlines()
        promised = [m.group(1) for m in re.finditer(r"^print\(.*?\)\s+#\s+(Errors\.[A-Z_]+)", block, re.M)]
        for name in promised:
            assert name in printed, (name, printed)


def test_docs_stand_on_their_own():
    """No page points into the machine it was written on or at sheets outside the repository."""
    offenders = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        for bad in ("/work/", "../shared", "shared/reference", "shared/seeds", "index id `"):
            if bad in text:
                offenders.append(f"{path.relative_to(ROOT)}: {bad}")
    assert offenders == []


def test_the_vocabulary_imports_alone_without_spec_impl_or_icontract():
    """Each vocabulary module, imported first in a fresh interpreter, loads no rule code: the
    vocabulary is what spec and impl share, so it must not depend on either (issue 16 item 7)."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    modules = ["groupspec", "groupspec.bounded_json", "groupspec.group_json"] + [
        "groupspec.types" + ("." + ".".join(p.relative_to(root / "groupspec" / "types")
                                            .with_suffix("").parts)).removesuffix(".__init__")
        for p in sorted((root / "groupspec" / "types").rglob("*.py"))]
    probe = ("import importlib, sys\n"
             "importlib.import_module(sys.argv[1])\n"
             "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in ('icontract', 'z3')\n"
             "    or m.startswith(('groupspec.spec', 'groupspec.impl', 'groupspec.models')))))")
    loaded = {}
    for module in modules:
        done = subprocess.run([sys.executable, "-c", probe, module], capture_output=True, text=True,
                              timeout=120, cwd=root)
        assert done.returncode == 0, (module, done.stderr[-2000:])
        if done.stdout.strip():
            loaded[module] = done.stdout.strip()
    assert len(modules) > 10
    assert loaded == {}


def test_tests_are_split_by_purpose_and_every_named_test_file_exists():
    """Test files live in a folder that says what they are for (issue 16 item 6), and every
    ``tests/...py`` that the docs or the code name is there (a moved file leaves no stale name)."""
    folders = {"cover", "scenarios", "stateful", "quality", "repo", "kafka", "broker", "pipeline",
               "crosshair", "compat"}
    loose = sorted(p.name for p in (ROOT / "tests").glob("test_*.py"))
    assert loose == [], "put each test file in one of " + ", ".join(sorted(folders))
    # The first folder under tests/ says the purpose; scenarios/ has one folder a machine.
    tests = ROOT / "tests"
    assert {p.relative_to(tests).parts[0] for p in tests.rglob("test_*.py")} <= folders
    from groupspec.machines import BY_NAME

    by_machine = {p.relative_to(tests / "scenarios").parts[0]
                  for p in (tests / "scenarios").rglob("*.py") if p.parent != tests / "scenarios"}
    assert by_machine <= set(BY_NAME), "a folder under tests/scenarios/ is named after its machine"
    named = set()
    for top in ("docs", "groupspec", "impl", "spec", "models", "bench", "tests", "README.md"):
        paths = [ROOT / top] if top.endswith(".md") else [
            p for p in (ROOT / top).rglob("*") if p.suffix in (".py", ".md")]
        for path in paths:
            if path.is_symlink() or any(part.is_symlink() for part in path.parents):
                continue
            named.update(re.findall(r"\btests/[a-z_/]+\.py\b", path.read_text(encoding="utf-8")))
    assert len(named) > 20
    missing = sorted(n for n in named if not (ROOT / n).is_file())
    assert missing == []


def test_state_diagrams_are_drawn_from_the_tables():
    """The docs' state diagrams are the rendering of groupspec/diagrams.py, and each draws exactly
    its machine's table of allowed predecessors (issue 16 item 4)."""
    import dataclasses

    from groupspec import diagrams

    for diagram in diagrams.DIAGRAMS:
        assert diagrams.drift(diagram) == []
    for drawing in diagrams.drawings():
        text = (ROOT / drawing.page).read_text(encoding="utf-8")
        assert diagrams.rendered_page(drawing, text) == text, \
            f"run `python -m groupspec.diagrams` to redraw {drawing.page}"
    # The check can fail: an arrow taken away, or one the table does not allow, is reported.
    consumer = diagrams.SHARE_CONSUMER
    fewer = dataclasses.replace(consumer, arrows=tuple(
        a for a in consumer.arrows if (a.source, a.target) != ("PREPARE_LEAVING", "UNSUBSCRIBED")))
    assert diagrams.drift(fewer) == ["share_consumer: the table allows PREPARE_LEAVING -> UNSUBSCRIBED, "
                                     "the diagram has no such arrow"]
    more = dataclasses.replace(diagrams.CLASSIC_GROUP, arrows=(
        *diagrams.CLASSIC_GROUP.arrows, diagrams.Arrow("Stable", "Empty")))
    assert diagrams.drift(more) == ["classic_group: the diagram draws Stable -> Empty, the table does "
                                    "not allow it"]


def test_every_spec_transition_table_is_in_the_docs():
    """A spec that dispatches through a kernel Table has that table rendered on its machine's page,
    and the rendering follows the table: a row added to the spec changes the page."""
    import dataclasses
    import importlib

    from groupspec import diagrams
    from groupspec.machines import MACHINES
    from groupspec.spec import kernel

    rendered = {t.module for t in diagrams.rule_tables()}
    stateful = {m.spec for m in MACHINES if m.handler == "run"}
    assert stateful == {f"groupspec.spec.{n}" for n in
                        ("classic_group", "share_partition", "share_group", "share_consumer", "share_state",
                         "share_delivery", "classic_consumer")}
    assert stateful <= rendered, "every stateful spec dispatches through a kernel Table"
    module = importlib.import_module("groupspec.spec.share_consumer")
    table = module.TABLE
    try:
        module.TABLE = dataclasses.replace(table, rules={**table.rules, ("STABLE", str): lambda st, e: None})
        drawing = next(t for t in diagrams.rule_tables() if t.module == module.__name__)
        assert diagrams.render_rules(drawing).count("| str | STABLE |") == 1
    finally:
        module.TABLE = table
    assert isinstance(table, kernel.Table)


def test_the_assignors_charts_are_the_paths_assign_runs():
    """The classic assignors' flowcharts are drawn from the spec's PATHS, the table ``assign``
    runs: every path has its chart on the page, the chart's boxes are the steps in the order
    they run, and a step taken out of a path, or a step changed, redraws the page."""
    import dataclasses

    from groupspec import diagrams
    from groupspec.spec import classic_assignors as spec
    from groupspec.types.classic_assignors import ClassicAssignorInput, ClassicMember

    charts = {c.path: c for c in diagrams.step_charts() if c.module == spec.__name__}
    assert set(charts) == {p.name for p in spec.PATHS}
    assert set(charts) == {"range", "roundrobin", "sticky_plain", "sticky_general"}
    page = (ROOT / "docs/machines/classic_assignors.md").read_text(encoding="utf-8")
    general = next(p for p in spec.PATHS if p.name == "sticky_general")
    chart = diagrams.render_steps(charts["sticky_general"])
    boxes = [chart.index(" ".join(s.rule.__doc__.split("\n\n")[0].split()).replace("``", "")[:40])
             for s in general.steps]
    assert boxes == sorted(boxes) and chart.count("-- yes -->") == 1
    # The dispatcher reads the same table: a group of two subscriptions takes the general path,
    # and dropping its balance step changes the answer (a keeps all of t).
    owned = (("t", 0), ("t", 1), ("t", 2), ("t", 3))
    members = (ClassicMember("a", ("t", "u"), owned, None, 1), ClassicMember("b", ("t",), (), None, 1))
    group = ClassicAssignorInput("cooperative-sticky", members, {"t": 4, "u": 1})
    assert spec.path_of(group) is general
    before = spec.run_path(general, group)
    kept = tuple(s for s in general.steps if s.rule is not spec.general_balance)
    fewer = dataclasses.replace(general, steps=kept)
    assert spec.run_path(fewer, group) != before
    original = spec.PATHS
    try:
        spec.PATHS = tuple(fewer if p is general else p for p in original)  # type: ignore[misc]
        assert diagrams.rendered_page(charts["sticky_general"], page) != page
        spec.PATHS = (*original, dataclasses.replace(general, name="unknown"))  # type: ignore[misc]
        extra = next(c for c in diagrams.step_charts() if c.path == "unknown")
        try:
            diagrams.rendered_page(extra, page)
            raise AssertionError("a path without a chart on the page went unnoticed")
        except ValueError as e:
            assert "has no block" in str(e)
    finally:
        spec.PATHS = original  # type: ignore[misc]


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = heading.strip().lower().replace("`", "")
    return re.sub(r"\s", "-", re.sub(r"[^\w\- ]", "", text))


def test_every_docs_link_and_docs_path_resolves():
    """Markdown links between the docs land on a file and, with a #fragment, on a heading; and
    every ``docs/...md`` that any file names exists (pages move; their names must follow)."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    broken = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, fragment = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            if not dest.is_file():
                broken.append(f"{page.relative_to(ROOT)}: {target} (no file)")
                continue
            if fragment and dest.suffix == ".md":
                headings = re.findall(r"^#+ (.+)$", dest.read_text(encoding="utf-8"), re.M)
                if fragment not in {_slug(h) for h in headings}:
                    broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    named = set()
    for top in ("docs", "groupspec", "impl", "spec", "models", "bench", "tests"):
        for path in (ROOT / top).rglob("*"):
            if path.suffix in (".py", ".md") and not any(p.is_symlink() for p in (path, *path.parents)):
                named.update(re.findall(r"\bdocs/[a-z0-9_/-]+\.md\b", path.read_text(encoding="utf-8")))
    named.update(re.findall(r"\bdocs/[a-z0-9_/-]+\.md\b", (ROOT / "README.md").read_text(encoding="utf-8")))
    broken += sorted(f"{name} is named but does not exist" for name in named if not (ROOT / name).is_file())
    assert len(named) > 10
    assert broken == []


def test_every_registered_machine_has_its_one_name_everywhere():
    """One registry entry a machine (groupspec.machines), and under its name: vocabulary, spec,
    implementation, vectors, docs page; every role it names loads (issue 16 items 1 and 2)."""
    import importlib
    import subprocess
    import sys

    from groupspec import machines
    from groupspec.conformance import targets
    from groupspec.conformance import vector_format as vf

    names = [m.name for m in machines.MACHINES]
    vectors = ROOT / "groupspec" / "vectors" / vf.KAFKA_VERSION
    assert sorted(names) == sorted(p.name for p in vectors.iterdir() if p.is_dir())
    assert sorted(vf.MACHINES) == sorted(names)
    assert sorted({m for m, _ in targets.handlers()}) == sorted(names)
    for m in machines.MACHINES:
        assert m.vocabulary.rsplit(".", 1)[-1] == m.name or m.name == "records", m.name
        importlib.import_module(m.vocabulary)
        importlib.import_module(m.impl)
        if m.spec is not None:
            assert m.spec == f"groupspec.spec.{m.name}" and (ROOT / "spec" / f"{m.name}.py").is_file()
            assert m.impl == f"groupspec.impl.{m.name}" and (ROOT / "impl" / m.name).is_dir()
        assert (ROOT / m.page).is_file(), m.page
        for role in (m.properties, m.judge, m.vectors):
            machines.load(role)
        for handler in m.handlers:  # each handler its own checks and driver
            for role in ("check_input", "check_output", "handler"):
                machines.load(m.role(role, handler))
            assert (m.name, handler) in targets.handlers(), (m.name, handler)
        assert m.property_names() == vf.MACHINES[m.name]().properties
    # The registry itself loads nothing of the project, so any module may read it.
    probe = ("import sys, groupspec.machines; print(sorted(m for m in sys.modules "
             "if m.startswith('groupspec.') and m != 'groupspec.machines'))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


def test_each_source_file_has_one_module_name():
    """spec/, impl/ and models/ are reached only as groupspec.spec, groupspec.impl and
    groupspec.models (through the symlinks; docs/architecture.md says why they stay): no file
    imports them by their top-level folder name, which would load a second copy of a module."""
    pattern = re.compile(r"^\s*(from|import)\s+(spec|impl|models)(\.|\s|$)", re.M)
    offenders = []
    for top in ("groupspec", "spec", "impl", "models", "tests", "bench"):
        for path in (ROOT / top).rglob("*.py"):
            if any(p.is_symlink() for p in (path, *path.parents)):
                continue
            if pattern.search(path.read_text(encoding="utf-8")):
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []
