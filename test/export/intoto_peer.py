"""The in-toto side of the export tests: Debian's in-toto and securesystemslib (run with
/usr/bin/python3), doing what an in-toto user would with what `ledger export` wrote.

  layout OWNER_KEY AGENT_PUB OUT STEP COMMAND_JSON PRODUCT...
      a root layout signed by OWNER_KEY: step STEP performed by AGENT_PUB, and an inspection
      that accepts the final product only when each PRODUCT matches the step's products
  layout-rules OWNER_KEY AGENT_PUB OUT SPEC_JSON_FILE
      the same with the step's own rules from the spec: {"step", "command", "materials",
      "products", "inspect": [PRODUCT...]}
  verify-dsse ENVELOPE PUB
      the DSSE envelope's signatures checked with securesystemslib (PAE per the DSSE spec);
      prints {"verified": bool, "keyids": [...], "statement": {...}}
  load-link LINK PUB
      in-toto's own Metablock.load + verify_signature; prints {"ok": true, "signed": {...}}
  canonical JSON_FILE
      securesystemslib's encode_canonical of each value in the JSON list, as UTF-8 hex
  encrypted-key PATH
      an ed25519 key pair encrypted with a password, as in-toto-keygen -p writes it
"""
import base64
import json
import sys

from in_toto.models.layout import Inspection, Layout, Step
from in_toto.models.metadata import Metablock
from securesystemslib import formats, interface, keys


def layout(owner_key, agent_pub, out, step_name, command_json, *products):
    write_layout(owner_key, agent_pub, out, {
        "step": step_name,
        "command": json.loads(command_json),
        "materials": [["ALLOW", "*"]],
        "products": [["ALLOW", "*"]],
        "inspect": list(products),
    })


def layout_rules(owner_key, agent_pub, out, spec_file):
    with open(spec_file, encoding="utf-8") as f:
        write_layout(owner_key, agent_pub, out, json.load(f))


def write_layout(owner_key, agent_pub, out, spec):
    step_name = spec["step"]
    products = spec["inspect"]
    root = Layout()
    root.set_relative_expiration(days=1)
    agent = root.add_functionary_key(interface.import_ed25519_publickey_from_file(agent_pub))
    step = Step(name=step_name)
    step.pubkeys = [agent["keyid"]]
    step.threshold = 1
    step.expected_command = spec["command"]
    step.expected_materials = spec["materials"]
    step.expected_products = spec["products"]
    inspection = Inspection(name="final-product")
    inspection.set_run_from_string("true")
    inspection.expected_materials = [
        ["MATCH", product, "WITH", "PRODUCTS", "FROM", step_name] for product in products
    ] + [["ALLOW", "root.layout"], ["ALLOW", "*.pub"], ["DISALLOW", "*"]]
    inspection.expected_products = [["ALLOW", "*"]]
    root.steps = [step]
    root.inspect = [inspection]
    metablock = Metablock(signed=root)
    metablock.sign(interface.import_ed25519_privatekey_from_file(owner_key))
    metablock.dump(out)


def verify_dsse(envelope_path, pub):
    with open(envelope_path, encoding="utf-8") as f:
        envelope = json.load(f)
    key = interface.import_ed25519_publickey_from_file(pub)
    payload = base64.b64decode(envelope["payload"], validate=True)
    payload_type = envelope["payloadType"].encode("utf-8")
    pae = b"DSSEv1 %d %s %d %s" % (len(payload_type), payload_type, len(payload), payload)
    verified = len(envelope["signatures"]) > 0
    for signature in envelope["signatures"]:
        sig = {"keyid": signature["keyid"], "sig": base64.b64decode(signature["sig"]).hex()}
        verified = verified and sig["keyid"] == key["keyid"] and keys.verify_signature(key, sig, pae)
    print(json.dumps({
        "verified": verified,
        "keyids": [s["keyid"] for s in envelope["signatures"]],
        "payloadType": envelope["payloadType"],
        "statement": json.loads(payload),
    }))


def load_link(link, pub):
    metablock = Metablock.load(link)
    metablock.verify_signature(interface.import_ed25519_publickey_from_file(pub))
    print(json.dumps({"ok": True, "signed": json.loads(repr(metablock))["signed"]}))


def canonical(json_file):
    with open(json_file, encoding="utf-8") as f:
        values = json.load(f)
    print(json.dumps([formats.encode_canonical(v).encode("utf-8").hex() for v in values]))


def encrypted_key(path):
    interface.generate_and_write_ed25519_keypair("secret", filepath=path)


COMMANDS = {
    "layout": layout,
    "layout-rules": layout_rules,
    "verify-dsse": verify_dsse,
    "load-link": load_link,
    "canonical": canonical,
    "encrypted-key": encrypted_key,
}

if __name__ == "__main__":
    COMMANDS[sys.argv[1]](*sys.argv[2:])
