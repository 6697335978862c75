"""Source snippets shared by the rules' VALID/INVALID examples (not by the rules)."""

# A compliant builder: canonical methods, format and layer validation, frozen after a terminal reply.
BUILDER = '''
class ReplyBuilder:
    def __init__(self):
        self._frozen = False

    def _guard(self, code):
        if self._frozen:
            raise RuntimeError("terminal reply already built")
        ok, err = validate_code_format(code)
        if not ok:
            raise ValueError(err)

    def success(self, code, data=None):
        self._guard(code)
        return (code, data)

    def invalid(self, code, data=None):
        self._guard(code)
        self._frozen = True
        return (code, data)

    def denied(self, code, data=None):
        self._guard(code)
        self._frozen = True
        return (code, data)

    def error(self, code, data=None):
        self._guard(code)
        self._frozen = True
        return (code, data)
'''

# A canonical registry with a few codes.
CODES = '''
class Codes:
    WA_RES_S_001 = ReplyCode("WA-RES-S-001")
    WA_RES_I_001 = ReplyCode("WA-RES-I-001")
    WA_READ_S_001 = ReplyCode("WA-READ-S-001")
    EN_WRITE_D_001 = ReplyCode("EN-WRITE-D-001")
    CT_GATE_S_001 = ReplyCode("CT-GATE-S-001")
    MCP_SYS_E_001 = ReplyCode("MCP-SYS-E-001")
    MCP_SYS_S_001 = ReplyCode("MCP-SYS-S-001")
'''


def tree(**modules: str) -> dict[str, str]:
    """A tree with the compliant builder and registry plus the given modules."""
    return {"builder.py": BUILDER, "codes.py": CODES, **{f"{k}.py": v for k, v in modules.items()}}
