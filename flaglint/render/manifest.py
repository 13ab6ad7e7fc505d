"""JobSet manifests: the containers of each JobSet, with every scalar's characters placed in the manifest.

A finding inside a flag string has to point at the manifest's line and column, also when the flag
sits inside a `|` block scalar of a `bash -c` command, so each scalar is read back from the source
with one (line, column) per character of its value. The re-scan is checked against the value the
YAML parser built; where they differ (a YAML construct the re-scan does not follow) every character
falls back to the scalar's start, which is imprecise but never wrong about the scalar.
"""

from __future__ import annotations

import base64
import binascii
import posixpath
import re
import weakref
from dataclasses import dataclass, field

import yaml

from flaglint.core.findings import InputError
from flaglint.core.location import Location

JOBSET_APIS = ("jobset.x-k8s.io/v1alpha2", "jobset.x-k8s.io/v1alpha1")  # the versions JobSet releases serve
TOPOLOGY_LABEL = "cloud.google.com/gke-tpu-topology"
ACCELERATOR_LABEL = "cloud.google.com/gke-tpu-accelerator"
_MERGE = "<<"


@dataclass(frozen=True)
class Scalar:
    """A string with the manifest position of each of its characters (None: made up, not written there)."""

    text: str
    positions: tuple[Location | None, ...]

    @property
    def start(self) -> Location | None:
        return next((p for p in self.positions if p is not None), None)


@dataclass(frozen=True)
class Unread:
    """Something the manifest may set that flaglint did not read: where, and what it is."""

    location: Location
    reason: str


@dataclass
class Container:
    workload: str  # the workload and, in a JobSet, the replicated job: `trainer/workers`
    name: str
    env: dict[str, Scalar]
    argv: list[Scalar]
    tpu_slice: Scalar | None
    unknown_env: dict[str, Unread] = field(default_factory=dict)  # env whose value is not in the input: name -> why
    unread: list[Unread] = field(default_factory=list)  # env sources not in the input (envFrom): any variable may come from them
    # The replicated job's replicas: one TPU slice each, as multislice JobSets (XPK's) run them;
    # None when the manifest does not say it as a number.
    slices: int | None = 1
    hooks: list[list[Scalar]] = field(default_factory=list)  # the commands of its lifecycle hooks (postStart, preStop)
    files: dict[str, Scalar] = field(default_factory=dict)  # path -> text: the files it mounts from ConfigMaps and Secrets of the input

    @property
    def path(self) -> str:
        return f"{self.workload}/{self.name}"


@dataclass
class Manifest:
    containers: list[Container]
    notes: list[str]
    unread: list[Unread] = field(default_factory=list)  # workloads whose containers were not read


def load_documents(text: str, file: str) -> list[yaml.Node | None]:
    """Compose every document (no construction: no tags run, nothing executes); broken YAML is one line."""
    try:
        # libyaml's composer when present: the same nodes and marks (character indices), 20x faster.
        documents = list(yaml.compose_all(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line = f":{mark.line + 1}" if mark is not None else ""
        reason = " ".join(part for part in (err.context, err.problem) if part)
        raise InputError(f"{file}{line}: not valid YAML: {reason}") from None
    except yaml.YAMLError as err:
        raise InputError(f"{file}: not valid YAML: {err}") from None
    if "\\u" in text or "\\U" in text:  # only an escape can make one
        for document in documents:
            _refuse_lone_surrogates(document, file)
    return documents


_SURROGATE = re.compile("[\ud800-\udfff]")


def _refuse_lone_surrogates(node: yaml.Node | None, file: str) -> None:
    """A `\\ud800` escape decodes to half a character, which no file or process can carry."""
    stack, seen = [node], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:  # an alias: its node is walked once
            continue
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            if _SURROGATE.search(node.value):
                raise InputError(f"{file}:{node.start_mark.line + 1}: not valid YAML: a lone surrogate escape (half of a UTF-16 pair) is not a character")
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            stack.extend(part for pair in node.value for part in pair)


# ---- scalars with per-character positions ----

class ManifestText:
    """A manifest's text, and the line and column of each of its characters."""

    def __init__(self, text: str, file: str):
        self.text = text
        self.file = file
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def position(self, index: int) -> Location:
        lo, hi = 0, len(self.line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.line_starts[mid] <= index:
                lo = mid
            else:
                hi = mid - 1
        return Location(self.file, lo + 1, index - self.line_starts[lo] + 1)


def scalar(node: yaml.ScalarNode, source: ManifestText) -> Scalar:
    start, end = node.start_mark.index, node.end_mark.index
    if node.style in ("|", ">"):
        scanned = _block(source.text, start, end, node.style, node.value)
    elif node.style == '"':
        scanned = _double_quoted(source.text, start + 1)
    elif node.style == "'":
        scanned = _folded_flow(source.text, start + 1, "'")
    else:
        scanned = _folded_flow(source.text, start, None, end)
    if scanned is not None and "".join(c for c, _ in scanned[: len(node.value)]) == node.value and len(scanned) >= len(node.value):
        return Scalar(node.value, tuple(source.position(i) for _, i in scanned[: len(node.value)]))
    here = source.position(start)
    return Scalar(node.value, (here,) * len(node.value))


def _block(text: str, start: int, end: int, style: str, value: str) -> list[tuple[str, int]] | None:
    header_end = text.find("\n", start)
    if header_end < 0:
        return []
    header = text[start + 1:header_end].split("#", 1)[0].strip()
    lines: list[tuple[int, str]] = []
    at = header_end + 1
    while at < len(text) and at <= end:
        stop = text.find("\n", at)
        stop = len(text) if stop < 0 else stop
        lines.append((at, text[at:stop].removesuffix("\r")))  # a CRLF file's break is one line break
        at = stop + 1
    first = next((line for _, line in lines if line.strip(" ")), "")
    detected = len(first) - len(first.lstrip(" "))
    candidates = [detected] + ([n for n in range(1, detected)] if any(c.isdigit() for c in header) else [])
    for indent in candidates:
        scanned = _block_lines(lines, indent, style)
        if "".join(c for c, _ in scanned).startswith(value):
            return scanned
    return None


def _block_lines(lines: list[tuple[int, str]], indent: int, style: str) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    previous_folds = False
    pending: list[tuple[str, int]] = []  # line breaks not yet written (folding decides what they become)
    for start, line in lines:
        if line.strip(" ") == "" and len(line) <= indent:
            pending.append(("\n", start + len(line)))
            continue
        if len(line) - len(line.lstrip(" ")) < indent:
            break
        content = line[indent:]
        folds = style == ">" and not content.startswith((" ", "\t"))
        if pending and out:
            breaks = pending
            if previous_folds and folds:
                breaks = pending[1:] if len(pending) > 1 else [(" ", pending[0][1])]
            out.extend(breaks)
        elif pending:
            out.extend(pending)
        pending = []
        out.extend((c, start + indent + i) for i, c in enumerate(content))
        pending.append(("\n", start + len(line)))
        previous_folds = folds
    out.extend(pending)
    return out


_ESCAPES = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r",
            "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029"}
_HEX = {"x": 2, "u": 4, "U": 8}


def _double_quoted(text: str, at: int) -> list[tuple[str, int]] | None:
    out: list[tuple[str, int]] = []
    while at < len(text):
        c = text[at]
        if c == '"':
            return out
        if c == "\\":
            nxt = text[at + 1:at + 2]
            if nxt in _ESCAPES:
                out.append((_ESCAPES[nxt], at))
                at += 2
            elif nxt in _HEX:
                digits = text[at + 2:at + 2 + _HEX[nxt]]
                try:
                    out.append((chr(int(digits, 16)), at))
                except ValueError:
                    return None
                at += 2 + _HEX[nxt]
            elif nxt == "\n":
                at = _skip_blank(text, at + 2)
            else:
                return None
            continue
        if c == "\n":
            at = _fold_break(text, at, out)
            continue
        out.append((c, at))
        at += 1
    return None


def _folded_flow(text: str, at: int, quote: str | None, end: int | None = None) -> list[tuple[str, int]] | None:
    """Single-quoted (quote "'") or plain (quote None, ending at `end`) scalars: line folding, and '' in quotes."""
    out: list[tuple[str, int]] = []
    stop = len(text) if end is None else end
    while at < stop:
        c = text[at]
        if quote and c == quote:
            if text[at + 1:at + 2] == quote:
                out.append((quote, at))
                at += 2
                continue
            return out
        if c == "\n":
            at = _fold_break(text, at, out)
            continue
        out.append((c, at))
        at += 1
    return out if quote is None else None


def _fold_break(text: str, at: int, out: list[tuple[str, int]]) -> int:
    """A line break inside a flow scalar: trailing blanks go, one break is a space, each empty line a newline."""
    while out and out[-1][0] in " \t":
        out.pop()
    newlines = []
    while at < len(text) and text[at] == "\n":
        newlines.append(at)
        at = _skip_blank(text, at + 1)
    if len(newlines) == 1:
        out.append((" ", newlines[0]))
    else:
        out.extend(("\n", n) for n in newlines[1:])
    return at


def _skip_blank(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t":
        at += 1
    return at


# ---- Kubernetes $(VAR) references in command and args ----

_REFERENCE = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")


MAX_EXPANDED = 1_000_000  # characters: each entry may double the one before it, 40 entries make a terabyte


def expand_references(arg: Scalar, env: dict[str, Scalar]) -> Scalar | None:
    """What the kubelet hands the container: `$$` is `$`, `$(NAME)` of a defined env entry is its
    value; None when that is longer than MAX_EXPANDED characters (not built: not checked)."""
    referenced = (env.get(match.group(1)) for match in _REFERENCE.finditer(arg.text))
    if len(arg.text) + sum(len(value.text) for value in referenced if value is not None) > MAX_EXPANDED:
        return None
    text: list[str] = []
    positions: list[Location | None] = []
    at = 0
    for match in _REFERENCE.finditer(arg.text):
        text.append(arg.text[at:match.start()])
        positions.extend(arg.positions[at:match.start()])
        if match.group(0) == "$$":
            text.append("$")
            positions.append(arg.positions[match.start()])
        elif match.group(1) in env:
            value = env[match.group(1)]
            text.append(value.text)
            positions.extend(value.positions)
        else:
            text.append(match.group(0))
            positions.extend(arg.positions[match.start():match.end()])
        at = match.end()
    text.append(arg.text[at:])
    positions.extend(arg.positions[at:])
    return Scalar("".join(text), tuple(positions))


# ---- workloads ----

_READ_PAIRS: weakref.WeakKeyDictionary[yaml.Node, list[tuple[str, yaml.Node]]] = weakref.WeakKeyDictionary()


def _pairs(node: yaml.Node | None) -> list[tuple[str, yaml.Node]]:
    """A mapping's entries as Kubernetes reads them: a key written twice has its last value, and
    the entries of a `<<` merge key come in where the mapping does not set them itself. Each
    mapping is read once (aliases share it), its merged mappings first, without recursion: merges
    of merges cost what they hold, not 2**depth, and a long chain of them is no deeper a call."""
    if not isinstance(node, yaml.MappingNode):
        return []
    stack: list[tuple[yaml.MappingNode, bool]] = [(node, False)]
    opened: set[int] = set()  # mappings whose sources are being read: one that merges itself gets nothing from itself
    while stack:
        mapping, sources_read = stack.pop()
        if mapping in _READ_PAIRS:
            continue
        unread = [source for source in _merge_sources(mapping) if source not in _READ_PAIRS and id(source) not in opened]
        if unread and not sources_read:
            opened.add(id(mapping))
            stack.append((mapping, True))
            stack.extend((source, False) for source in unread)
            continue
        _READ_PAIRS[mapping] = _merged_pairs(mapping)
    return _READ_PAIRS[node]


def _merge_sources(node: yaml.MappingNode) -> list[yaml.MappingNode]:
    """The mappings a `<<` key of the mapping merges in, first first."""
    sources = []
    for key, value in node.value:
        if isinstance(key, yaml.ScalarNode) and key.value == _MERGE and key.tag.endswith(":merge"):
            sources += [source for source in (value.value if isinstance(value, yaml.SequenceNode) else [value])
                        if isinstance(source, yaml.MappingNode)]
    return sources


def _merged_pairs(node: yaml.MappingNode) -> list[tuple[str, yaml.Node]]:
    """The mapping's entries, its merged mappings being read already."""
    own: dict[str, yaml.Node] = {}
    for key, value in node.value:
        if isinstance(key, yaml.ScalarNode) and not (key.value == _MERGE and key.tag.endswith(":merge")):
            own[key.value] = value
    merged: dict[str, yaml.Node] = {}
    for source in _merge_sources(node):  # the first source that sets a key gives it
        for name, entry in _READ_PAIRS.get(source, []):
            merged.setdefault(name, entry)
    return [*own.items(), *((name, value) for name, value in merged.items() if name not in own)]


def _get(node: yaml.Node | None, key: str) -> yaml.Node | None:
    return dict(_pairs(node)).get(key)


def _path(node: yaml.Node | None, *keys: str) -> yaml.Node | None:
    for key in keys:
        node = _get(node, key)
    return node


def _items(node: yaml.Node | None) -> list[yaml.Node]:
    return list(node.value) if isinstance(node, yaml.SequenceNode) else []


def _text(node: yaml.Node | None) -> str | None:
    return node.value if isinstance(node, yaml.ScalarNode) else None


# The pod templates of each workload kind that runs containers (apiVersion, kind -> the path to its pod spec).
_POD_SPECS = {
    ("v1", "Pod"): ("spec",),
    ("v1", "PodTemplate"): ("template", "spec"),
    ("batch/v1", "Job"): ("spec", "template", "spec"),
    ("batch/v1", "CronJob"): ("spec", "jobTemplate", "spec", "template", "spec"),
    **{("apps/v1", kind): ("spec", "template", "spec") for kind in ("Deployment", "StatefulSet", "ReplicaSet", "DaemonSet")},
}


_Sources = dict[str, dict[str, yaml.Node]]  # the ConfigMaps and Secrets a workload reads: kind -> name -> object


@dataclass
class _Documents:
    """Every object of the input (a `kind: List`'s items too), and the ConfigMaps and Secrets
    among them that a container's env may read."""

    objects: list[tuple[yaml.Node, str]] = field(default_factory=list)  # the object, and its name for a note
    stores: list[tuple[str, str | None, str, yaml.Node]] = field(default_factory=list)  # kind, namespace, name, object

    def add(self, node: yaml.Node, name: str, depth: int = 0) -> None:
        kind = _text(_get(node, "kind")) or ""
        items = _get(node, "items")
        if kind.endswith("List") and isinstance(items, yaml.SequenceNode) and depth < 8:
            for number, item in enumerate(items.value, 1):
                self.add(item, f"{name}, item {number}", depth + 1)
            return
        self.objects.append((node, name))
        title = _text(_path(node, "metadata", "name"))
        if title is not None and kind in ("ConfigMap", "Secret"):
            self.stores.append((kind, _text(_path(node, "metadata", "namespace")), title, node))

    def sources(self, workload: yaml.Node) -> _Sources:
        """The ConfigMaps and Secrets of the workload's namespace (by name alone where either does
        not say its namespace: it is the one `kubectl apply` is given); a later one of a name wins."""
        namespace = _text(_path(workload, "metadata", "namespace"))
        found: _Sources = {"ConfigMap": {}, "Secret": {}}
        for kind, their_namespace, name, node in self.stores:
            if namespace is None or their_namespace is None or namespace == their_namespace:
                found[kind][name] = node
        return found


def read_manifest(text: str, file: str) -> Manifest:
    """Every container of every workload in the manifest (JobSets, Jobs, Pods, …, inside `kind: List`
    too), with its env resolved against the manifest's ConfigMaps and Secrets; what it could run
    but flaglint does not read is `unread`, other objects are notes."""
    source = ManifestText(text, file)
    documents = _Documents()
    for number, document in enumerate(load_documents(text, file), 1):
        if document is not None:
            documents.add(document, f"document {number}")
    manifest = Manifest([], [])
    for node, number in documents.objects:
        where = source.position(node.start_mark.index)
        if not isinstance(node, yaml.MappingNode):
            manifest.notes.append(f"{file}:{where.line}: skipped {number}: not a Kubernetes object")
            continue
        api, kind = _text(_get(node, "apiVersion")), _text(_get(node, "kind"))
        name = _text(_path(node, "metadata", "name")) or number
        shown = f"{kind or 'an object without kind'} {name}" + (f" ({api})" if api else "")
        if kind == "JobSet" and api in JOBSET_APIS:
            manifest.containers.extend(_jobset_containers(node, name, source, documents.sources(node)))
        elif (api, kind) in _POD_SPECS:
            pod = _path(node, *_POD_SPECS[api, kind])
            tpu_slice = _tpu_slice(_get(pod, "nodeSelector"), source)
            manifest.containers.extend(_pod_containers(pod, name, tpu_slice, 1, source, documents.sources(node)))
        elif kind == "JobSet" or (kind and any(kind == known for _, known in _POD_SPECS)) or _runs_containers(node):
            manifest.unread.append(Unread(where, f"{shown}: a workload of an API flaglint does not read; its containers are not checked"))
        else:
            manifest.notes.append(f"{file}:{where.line}: skipped {shown}: it runs no container")
    return manifest


def _runs_containers(node: yaml.Node) -> bool:
    """Whether an object has a pod spec somewhere (a `containers` list): a custom resource may run a trainer."""
    stack, seen = [node], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            if isinstance(_get(node, "containers"), yaml.SequenceNode):
                return True
            stack.extend(value for _, value in _pairs(node))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return False


def _jobset_containers(document: yaml.Node, jobset: str, source: ManifestText, sources: _Sources) -> list[Container]:
    jobs = _items(_path(document, "spec", "replicatedJobs"))
    slices = {id(job): _tpu_slice(_path(job, "template", "spec", "template", "spec", "nodeSelector"), source) for job in jobs}
    distinct = {s.text: s for s in slices.values() if s is not None}
    shared = next(iter(distinct.values())) if len(distinct) == 1 else None
    out = []
    for number, job in enumerate(jobs, 1):
        job_name = _text(_get(job, "name")) or f"replicatedJob {number}"
        pod = _path(job, "template", "spec", "template", "spec")
        out.extend(_pod_containers(pod, f"{jobset}/{job_name}", slices[id(job)] or shared, _replicas(job), source, sources))
    return out


def _pod_containers(pod: yaml.Node | None, workload: str, tpu_slice: Scalar | None, slices: int | None, source: ManifestText,
                    sources: _Sources) -> list[Container]:
    out = []
    volumes = _volumes(pod, source, sources)
    for section in ("initContainers", "containers"):
        for index, node in enumerate(_items(_get(pod, section)), 1):
            container = _container(node, workload, index, tpu_slice, source, sources)
            container.slices = slices
            container.files = _mounted(node, volumes)
            out.append(container)
    return out


def _volumes(pod: yaml.Node | None, source: ManifestText, sources: _Sources) -> dict[str, dict[str, Scalar]]:
    """The pod's volumes of a ConfigMap or Secret of the input: volume name -> file name -> text
    (the keys its `items` name, at their paths; every key where it names none)."""
    found: dict[str, dict[str, Scalar]] = {}
    for volume in _items(_get(pod, "volumes")):
        name = _text(_get(volume, "name"))
        for field_name, kind, key in (("configMap", "ConfigMap", "name"), ("secret", "Secret", "secretName")):
            store = _get(volume, field_name)
            node = sources[kind].get(_text(_get(store, key)) or "") if store is not None else None
            if name is None or node is None:
                continue
            data = _data(node, kind, source)
            items = _items(_get(store, "items"))
            found[name] = {(_text(_get(item, "path")) or ""): data[_text(_get(item, "key")) or ""]
                           for item in items if (_text(_get(item, "key")) or "") in data} if items else data
    return found


def _mounted(node: yaml.Node, volumes: dict[str, dict[str, Scalar]]) -> dict[str, Scalar]:
    """The files a container sees of those volumes, by path (a `subPath` mounts one file)."""
    files: dict[str, Scalar] = {}
    for mount in _items(_get(node, "volumeMounts")):
        at, name, sub = _text(_get(mount, "mountPath")), _text(_get(mount, "name")), _text(_get(mount, "subPath"))
        if at is None or name not in volumes:
            continue
        for file_name, text in volumes[name].items():
            if not sub:
                files[posixpath.join(at, file_name)] = text
            elif sub == file_name:
                files[at] = text
    return files


REPLICAS_MAX = 2**31 - 1


def _replicas(job: yaml.Node) -> int | None:
    node = _get(job, "replicas")
    if node is None:
        return 1  # the JobSet API's default
    text = _text(node)
    # Kubernetes reads replicas as an int32: a longer or non-ASCII digit string is no count it takes
    if text is None or not (text.isascii() and text.isdigit()) or len(text) > len(str(REPLICAS_MAX)):
        return None
    return int(text) if 0 < int(text) <= REPLICAS_MAX else None


def _tpu_slice(selector: yaml.Node | None, source: ManifestText) -> Scalar | None:
    topology, accelerator = _get(selector, TOPOLOGY_LABEL), _get(selector, ACCELERATOR_LABEL)
    if not isinstance(topology, yaml.ScalarNode) or not isinstance(accelerator, yaml.ScalarNode):
        return None
    shape = scalar(topology, source)
    # Findings about the slice point at the topology, the part a recipe chooses.
    return Scalar(f"{accelerator.value}:{shape.text}", (shape.start,) * (len(accelerator.value) + 1) + shape.positions)


def _container(node: yaml.Node, workload: str, index: int, tpu_slice: Scalar | None, source: ManifestText,
               sources: _Sources) -> Container:
    """A container with its environment as the kubelet builds it: the `envFrom` sources in order
    (a later one wins), then `env` (a later entry wins), each value's `$(NAME)` references expanded."""
    container = Container(workload, _text(_get(node, "name")) or f"container {index}", {}, [], tpu_slice)
    for entry in _items(_get(node, "envFrom")):
        _env_from(entry, container, source, sources)
    for entry in _items(_get(node, "env")):
        key, value, value_from = _text(_get(entry, "name")), _get(entry, "value"), _get(entry, "valueFrom")
        if key is None:
            continue
        container.unknown_env.pop(key, None)
        if isinstance(value, yaml.ScalarNode):
            expanded = _expanded(scalar(value, source), container)
            if isinstance(expanded, str):
                container.env.pop(key, None)
                container.unknown_env[key] = Unread(source.position(entry.start_mark.index), expanded)
            else:
                container.env[key] = expanded
        elif value_from is not None:
            container.env.pop(key, None)
            found = _value_from(value_from, source, sources)
            if isinstance(found, Scalar):
                container.env[key] = found
            else:
                container.unknown_env[key] = Unread(source.position(entry.start_mark.index), found)
        else:
            container.env[key] = Scalar("", ())
    # A word's reference to a variable not known here stays as written (a bash -c script reads it
    # as a command substitution, whose output is not known either).
    for part in ("command", "args"):
        container.argv.extend(_words(container, _items(_get(node, part)), part, source))
    for hook in ("postStart", "preStop"):
        words = _items(_path(node, "lifecycle", hook, "exec", "command"))
        if words:
            container.hooks.append(_words(container, words, f"{hook} hook", source))
    return container


def _words(container: Container, nodes: list[yaml.Node], part: str, source: ManifestText) -> list[Scalar]:
    """The words of a command as the kubelet gives them, each `$(NAME)` of the container's env expanded."""
    words = []
    for arg in nodes:
        if not isinstance(arg, yaml.ScalarNode):
            continue
        expanded = expand_references(scalar(arg, source), container.env)
        if expanded is None:
            container.unread.append(Unread(source.position(arg.start_mark.index), f"{container.path}: a word of its {part} is not checked: {_TOO_LONG}"))
        else:
            words.append(expanded)
    return words


_TOO_LONG = f"its $(NAME) references expand past {MAX_EXPANDED:,} characters"


def unknown_reference(written: Scalar, container: Container) -> str | None:
    """The first variable a `$(NAME)` of WRITTEN refers to whose value is not known here (the
    kubelet puts in a value flaglint cannot tell: a fieldRef, a ConfigMap not in the input)."""
    return next((match.group(1) for match in _REFERENCE.finditer(written.text) if match.group(1) in container.unknown_env), None)


def _expanded(written: Scalar, container: Container) -> Scalar | str:
    """An env value with its `$(NAME)` references expanded, or why it is not known here: it refers
    to a variable whose value is not, or it would be longer than MAX_EXPANDED characters."""
    unknown = unknown_reference(written, container)
    if unknown is not None:
        return f"it refers to $({unknown}), whose value is not known here"
    expanded = expand_references(written, container.env)
    return _TOO_LONG if expanded is None else expanded



def _env_from(entry: yaml.Node, container: Container, source: ManifestText, sources: _Sources) -> None:
    prefix = _text(_get(entry, "prefix")) or ""
    for field_name, kind in (("configMapRef", "ConfigMap"), ("secretRef", "Secret")):
        reference = _get(entry, field_name)
        if reference is None:
            continue
        name = _text(_get(reference, "name"))
        found = sources[kind].get(name or "")
        if found is None:
            where = source.position(entry.start_mark.index)
            container.unread.append(Unread(where, f"{container.path}: envFrom {kind} {name}, which is not in this input: the variables it sets are not checked"))
            continue
        for key, value in _data(found, kind, source).items():
            container.env[prefix + key] = value
            container.unknown_env.pop(prefix + key, None)


def _value_from(value_from: yaml.Node, source: ManifestText, sources: _Sources) -> Scalar | str:
    """The value a `valueFrom` gives from a ConfigMap or Secret of the input, or why it is not known."""
    for field_name, kind in (("configMapKeyRef", "ConfigMap"), ("secretKeyRef", "Secret")):
        reference = _get(value_from, field_name)
        if reference is None:
            continue
        name, key = _text(_get(reference, "name")), _text(_get(reference, "key"))
        found = sources[kind].get(name or "")
        if found is None:
            return f"its {field_name} names {kind} {name}, which is not in this input"
        value = _data(found, kind, source).get(key or "")
        return value if value is not None else f"its {field_name} names the key {key}, which {kind} {name} does not hold"
    given = next((name for name, _ in _pairs(value_from)), "valueFrom")
    return f"its value comes from {given}, known only where the pod runs"


def _data(node: yaml.Node, kind: str, source: ManifestText) -> dict[str, Scalar]:
    """A ConfigMap's `data`, or a Secret's `data` (base64, decoded: its characters are placed at
    the value's start) and `stringData` (which wins, as the API server merges it in last)."""
    values: dict[str, Scalar] = {}
    for key, value in _pairs(_get(node, "data")):
        if not isinstance(value, yaml.ScalarNode):
            continue
        if kind == "ConfigMap":
            values[key] = scalar(value, source)
            continue
        try:
            decoded = base64.b64decode(value.value, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            continue  # the API server refuses it: nothing runs with this value
        values[key] = Scalar(decoded, (source.position(value.start_mark.index),) * len(decoded))
    if kind == "Secret":
        values.update((key, scalar(value, source)) for key, value in _pairs(_get(node, "stringData")) if isinstance(value, yaml.ScalarNode))
    return values
