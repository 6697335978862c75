"""Legacy code classification (spec 000 §12), as the profile states it.

Every legacy code gets exactly one class, decided in this order:

1. an explicit mapping entry decides first: a retired value → `retired`; a
   target that breaks the layer rules (layer outside the closed set, or a type
   forbidden for its layer) → `mapped_to_forbidden`; a target the canonical
   registry does not define → `mapped_to_unknown`; else `mapped`;
2. no mapping, the same code is canonical → `identical`;
3. no mapping, its layer is outside the closed set or its type is forbidden for
   its layer → `retired` (spec 000 §12: retired, not migrated);
4. otherwise → `unmapped`: a gap in the migration table.
"""

from __future__ import annotations

from .profile import Profile
from .records import LegacyCode

CLASSES = ("mapped", "identical", "retired", "unmapped", "mapped_to_unknown", "mapped_to_forbidden")


def classify_mapping_entry(profile: Profile, target: str | None, canonical: set[str]) -> str:
    if target is None:
        return "retired"
    if not profile.obeys_layer_rules(target):
        return "mapped_to_forbidden"
    if target not in canonical:
        return "mapped_to_unknown"
    return "mapped"


def _retired_by_rule(profile: Profile, code: str) -> str | None:
    parts = profile.parse_code(code)
    legacy = profile.section("legacy")
    if parts is None:
        return "not in the code format"
    if legacy.get("retire_outside_layers", True) and not profile.layer_known(parts):
        return f"layer {parts.layer} is outside the closed set"
    if legacy.get("retire_forbidden_types", True) and not profile.type_allowed(parts):
        return f"type {parts.type} is forbidden for layer {parts.layer}"
    return None


def classify_legacy(
    profile: Profile,
    legacy: set[str],
    canonical: set[str],
    mapping: dict[str, tuple[str | None, str]],
    registries_of: dict[str, list[str]],
) -> list[LegacyCode]:
    out = []
    for code in sorted(legacy):
        target = None
        via = None
        reason = None
        if code in mapping:
            target, via = mapping[code]
            cls = classify_mapping_entry(profile, target, canonical)
            reason = "retired explicitly" if target is None else None
        elif code in canonical:
            cls = "identical"
        elif (reason := _retired_by_rule(profile, code)) is not None:
            cls = "retired"
        else:
            cls = "unmapped"
        out.append(LegacyCode(code=code, cls=cls, target=target, mapping=via, reason=reason,
                              registries=sorted(registries_of.get(code, []))))
    return out
