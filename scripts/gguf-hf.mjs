// gguf-hf.mjs - a GGUF file as @huggingface/gguf sees it (issue 39): the
// independent parser tests/test_gguf_hf.c holds our writer's files against
// (ggml's own reader is the other).  Prints one plain line per fact, in file
// order, nothing computed by us beyond the alignment's default:
//
//   gguf version V kv N tensors T alignment A data D   (D: first data byte)
//   kv KEY TYPE VALUE                                    scalars and strings
//   kv KEY array LENGTH ELEMTYPE                         arrays
//   tensor NAME TYPE DIM,DIM,... OFFSET                  TYPE: ggml's number
//
// TYPE of a key is the GGUF value type (u8 i8 u16 i16 u32 i32 f32 bool string
// array u64 i64 f64); a tensor's TYPE is the number in the file, so a type the
// package does not know (bitnet.cpp's I2_S, 36) prints like any other.
// Strings and names escape backslash and control characters (\n, \t, \xNN) so
// one fact stays one line.  Floats print as JavaScript does (shortest exact).
//
// The package comes from MPBENCH_HF_GGUF_DIR, else third_party/hf-gguf next to
// this script's folder (make peers).  Exit 0 printed, 1 the parser refused the
// file (its message on stderr), 2 usage, 3 cannot run here (Node too old,
// package absent: the reason on stderr, the test skips on it).
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const cannot = (why) => {
    process.stderr.write(`gguf-hf: ${why}\n`);
    process.exit(3);
};
if (process.argv.length !== 3) {
    process.stderr.write("usage: node scripts/gguf-hf.mjs FILE\n");
    process.exit(2);
}
const major = Number(process.versions.node.split(".")[0]);
if (major < 20)
    cannot(`Node ${process.versions.node} is too old for @huggingface/gguf (it needs 20 or newer)`);
const dir = process.env.MPBENCH_HF_GGUF_DIR ||
    resolve(dirname(fileURLToPath(import.meta.url)), "..", "third_party", "hf-gguf");
const entry = join(dir, "node_modules", "@huggingface", "gguf", "dist", "index.mjs");
if (!existsSync(entry))
    cannot(`@huggingface/gguf is not in ${dir} (run make peers, or set MPBENCH_HF_GGUF_DIR)`);
const { gguf } = await import(pathToFileURL(entry).href);

const VALUE_TYPES = ["u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "string", "array",
                     "u64", "i64", "f64"];
const esc = (s) => s.replace(/[\\\x00-\x1f\x7f]/g, (c) =>
    c === "\\" ? "\\\\" : c === "\n" ? "\\n" : c === "\t" ? "\\t" : c === "\r" ? "\\r"
    : "\\x" + c.charCodeAt(0).toString(16).padStart(2, "0"));
const scalar = (type, v) =>
    type === 7 ? (v ? "true" : "false") : type === 8 ? esc(v) : String(v);

let r;
try {
    r = await gguf(process.argv[2], { allowLocalFile: true, typedMetadata: true });
} catch (err) {
    process.stderr.write(`gguf-hf: ${process.argv[2]}: ${err.message}\n`);
    process.exit(1);
}
const lines = [];
const md = r.typedMetadata;
// the parser puts version, tensor_count and kv_count first among the keys
const keys = Object.keys(md).filter((k) => !["version", "tensor_count", "kv_count"].includes(k));
const align = md["general.alignment"] ? md["general.alignment"].value : 32;
lines.push(`gguf version ${md.version.value} kv ${md.kv_count.value} tensors ` +
           `${md.tensor_count.value} alignment ${align} data ${r.tensorDataOffset}`);
for (const k of keys) {
    const { value, type, subType } = md[k];
    if (type === 9)
        lines.push(`kv ${esc(k)} array ${value.length} ${VALUE_TYPES[subType] ?? subType}`);
    else
        lines.push(`kv ${esc(k)} ${VALUE_TYPES[type] ?? type} ${scalar(type, value)}`);
}
for (const t of r.tensorInfos)
    lines.push(`tensor ${esc(t.name)} ${t.dtype} ${t.shape.map(String).join(",")} ${t.offset}`);
process.stdout.write(lines.join("\n") + "\n");
