// Compiles JSON Schemas with ajv in strict mode (draft 2020-12) and validates instances
// against them. Input on stdin: {"schemas": [{"label", "schema"}], "instances": [{"label",
// "schema", "data"}]}. Output on stdout: {"errors": ["<label>: <what>"]}: a schema that does
// not compile, anything ajv warns about (strict mode logs some problems instead of throwing),
// an instance that does not validate. Run by tests/mcp/test_schemas.py, with NODE_DEPS naming
// the node_modules folder that holds ajv (.test-deps/mcp-node/node_modules).
import { createRequire } from "node:module";

const require = createRequire(`${process.env.NODE_DEPS}/`);
const Ajv2020 = require("ajv/dist/2020").default;

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const input = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const errors = [];

function compiler(label) {
  const say = (...args) => errors.push(`${label}: ${args.map(String).join(" ")}`);
  // strict: true turns on strictSchema, strictNumbers, strictTypes, strictTuples and
  // strictRequired, all as errors; whatever ajv still only logs is caught by the logger.
  return new Ajv2020({ strict: true, allErrors: true, logger: { log() {}, warn: say, error: say } });
}

for (const { label, schema } of input.schemas) {
  try {
    compiler(label).compile(schema);
  } catch (e) {
    errors.push(`${label}: ${e.message}`);
  }
}
for (const { label, schema, data } of input.instances) {
  let validate;
  try {
    validate = compiler(label).compile(schema);
  } catch (e) {
    errors.push(`${label}: the schema does not compile: ${e.message}`);
    continue;
  }
  if (!validate(data)) {
    const why = validate.errors.map((e) => `${e.instancePath || "/"} ${e.message} (${e.schemaPath})`);
    errors.push(`${label}: the reply does not fit its outputSchema: ${why.join("; ")}`);
  }
}
process.stdout.write(JSON.stringify({ errors }));
