"""Which roles own a mesh where the pinned Tunix carves the roles' meshes out of one pool of devices
(0.1.7's grpo_main: `_resolve_mesh_owners` and `create_role_to_mesh`; the role names are the
importer's `mesh_roles`), checked as it checks them once the downloads are done:

- `same_mesh_as` names a role (actor, critic, reference, reward, rollout; any case, spaces around),
  never on the actor (it owns its mesh), never beside the role's own `mesh`, and only a role that
  is active (one whose section is in the config);
- every mesh owner's `mesh.allocation_policy` (COMPACT where it is not set; any case) is one the
  release's mesh module supports, and all owners agree on one.
"""

from __future__ import annotations

from typing import Any

from flaglint.core.findings import Finding
from flaglint.core.location import Location
from flaglint.rules.ruleset import built_in
from flaglint.tunix.merge import AFTER_DOWNLOADS, Merged, staged
from flaglint.tunix.pins import TunixPin

ACTOR = "actor"
DEFAULT_POLICY = "COMPACT"


def check_mesh_owners(pin: TunixPin, merged: Merged, entry: str) -> list[Finding]:
    roles = (pin.mesh_roles or {}).get(entry)
    if not roles:
        return []
    out: list[Finding] = []
    owners = []
    for role, section in roles.items():
        config = merged.config.get(section)
        if not isinstance(config, dict) or section in merged.unknown:
            continue
        target = config.get("same_mesh_as")
        if target is None:
            if role == ACTOR or config.get("mesh"):
                owners.append(section)
            continue
        key = f"{section}.same_mesh_as"
        name = str(target).strip().lower()
        if name not in roles:
            out.append(built_in("FL212", (key,), _at(merged, key), variant="same_mesh_as_role", key=key, value=target,
                                roles=", ".join(sorted(roles))))
        elif role == ACTOR:
            out.append(built_in("FL212", (key,), _at(merged, key), variant="same_mesh_as_actor", key=key))
        elif config.get("mesh"):
            out.append(built_in("FL212", (key, f"{section}.mesh"), _at(merged, key), variant="same_mesh_as_owner", key=key,
                                section=section))
        elif roles[name] not in merged.config:
            out.append(built_in("FL212", (key,), _at(merged, key), variant="same_mesh_as_inactive", key=key, value=target))
    out += _policies(pin, merged, owners)
    return [staged(f, AFTER_DOWNLOADS) for f in out]


def _policies(pin: TunixPin, merged: Merged, owners: list[str]) -> list[Finding]:
    supported = pin.mesh.get("allocation_policies")
    if not supported:
        return []
    chosen: list[tuple[str, str]] = []
    for section in owners:
        mesh = merged.config[section].get("mesh")
        if not isinstance(mesh, dict):
            return []  # no mesh to read a policy from: the mesh checks say it
        key = f"{section}.mesh.allocation_policy"
        policy: Any = mesh.get("allocation_policy")
        normalized = DEFAULT_POLICY if policy is None else policy.upper() if isinstance(policy, str) else None
        if normalized not in supported:
            return [built_in("FL212", (key,), _at(merged, key), variant="allocation_policy", key=key, value=policy,
                             policies=", ".join(supported))]
        chosen.append((key, normalized))
    differing = [(key, policy) for key, policy in chosen if policy != chosen[0][1]]
    if differing:
        first, other = chosen[0], differing[0]
        return [built_in("FL212", (first[0], other[0]), _at(merged, other[0]), variant="allocation_policies", key=other[0],
                         value=other[1], first=first[0], policy=first[1])]
    return []


def _at(merged: Merged, key: str) -> Location | None:
    origin = merged.origin(key)
    return origin.location if origin is not None else None
