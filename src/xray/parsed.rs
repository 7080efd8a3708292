//! What of a candidate file is parsed: the whole file, or, for a query each of whose matches
//! lies inside one top-level item, only the items that hold driver matches, each run of them
//! parsed alone (a run of a container's items with the container's header and footer; see
//! [`crate::extract::Outline`]).

use tree_sitter::Tree;

use super::lines::Lines;
use crate::extract::{self, Outline, Region};
use crate::lang::Language;

/// A part parse is made when it leaves out at least this share of the file.
const MIN_SAVING: f64 = 0.1;

/// The trees of a file's parse and how many of its bytes they cover.
pub(super) struct Parsed {
    /// One tree for the whole file, or one per run of items parsed.
    pub trees: Vec<Tree>,
    /// Bytes parsed.
    pub bytes: usize,
}

/// Parses `data`, a file of `language`: only the runs of items of `outline` that hold a byte
/// of `spans` when there is an outline made for this content and it leaves enough out, else
/// the whole file. A run whose syntax alone differs from the whole file's (its fingerprint)
/// means the part parse is not the whole file's: the top-level runs are tried then (when a
/// run of a container's items read otherwise), and the whole file after them.
pub(super) fn parse(
    language: &'static Language,
    data: &[u8],
    outline: Option<&Outline>,
    spans: Option<&[(usize, usize)]>,
) -> Result<Parsed, String> {
    if let (Some(outline), Some(spans)) = (outline, spans)
        && outline.len() == data.len()
    {
        match part_parse(language, data, outline, spans) {
            Part::Parsed(parsed) => return Ok(parsed),
            Part::Differs if outline.has_containers() => {
                let top_level = outline.clone().keep_families(0);
                if let Part::Parsed(parsed) = part_parse(language, data, &top_level, spans) {
                    return Ok(parsed);
                }
            }
            Part::Differs | Part::TooMuch => {}
        }
    }
    Ok(Parsed { trees: vec![extract::parse_whole(language, data)?], bytes: data.len() })
}

/// What a part parse gave.
enum Part {
    Parsed(Parsed),
    /// A run read otherwise alone.
    Differs,
    /// It would leave too little of the file out.
    TooMuch,
}

/// Parses the regions of `outline` that hold a byte of `spans`.
fn part_parse(language: &'static Language, data: &[u8], outline: &Outline, spans: &[(usize, usize)]) -> Part {
    let regions = extract::regions(outline, spans);
    let bytes: usize = regions.iter().map(Region::len).sum();
    if (bytes as f64) > data.len() as f64 * (1.0 - MIN_SAVING) {
        return Part::TooMuch;
    }
    match parse_regions(language, data, outline, &regions) {
        Some(trees) => Part::Parsed(Parsed { trees, bytes }),
        None => Part::Differs,
    }
}

/// One tree per region, or `None` when one does not parse as in the whole file.
fn parse_regions(language: &'static Language, data: &[u8], outline: &Outline, regions: &[Region]) -> Option<Vec<Tree>> {
    let mut trees = Vec::with_capacity(regions.len());
    let lines = Lines::of(data);
    for region in regions {
        let tree = extract::parse_in(language, data, &lines.ranges(&region.ranges)).ok()?;
        if !outline.agrees(&tree, region, language.grammar) {
            return None;
        }
        trees.push(tree);
    }
    Some(trees)
}

#[cfg(test)]
mod tests {
    use std::ops::Range;

    use super::*;

    /// The parser's ranges of byte `regions` of `data` (in order), with their rows and columns.
    fn ranges_of(data: &[u8], regions: &[Range<usize>]) -> Vec<tree_sitter::Range> {
        Lines::of(data).ranges(regions)
    }

    /// One block of items per grammar an outline is made for, with a name to make copies of
    /// it differ: the kinds of top-level items the grammar has, comments between them, and
    /// what a parse could read differently on less text (no semicolons in JavaScript,
    /// decorators, attributes, line continuations, preprocessor blocks).
    fn block(grammar: &str, n: usize) -> String {
        let text = match grammar {
            "c" => {
                "#include <linux/slab.h>\n#define COPY_§(dst, src) \\\n\tmemcpy((dst), (src), sizeof(*(src)))\n\n\
                 /* A buffer. */\nstruct buf_§ {\n\tchar *data;\n\tsize_t len;\n};\n\n\
                 static int copy_§(struct buf_§ *b, const char *s)\n{\n\tif (!b)\n\t\tgoto out;\n\
                 \tmemcpy(b->data, s, b->len);\nout:\n\treturn 0;\n}\n\n\
                 #ifdef CONFIG_§\nstatic const int table_§[] = { 1, 2, 3 };\n#endif\n\
                 typedef int (*handler_§)(void *);\nEXPORT_SYMBOL(copy_§);\n\n"
            }
            "cpp" => {
                "#include <vector>\n// A box.\ntemplate <typename T>\nclass Box_§ {\n public:\n  explicit Box_§(T v) : \
                 v_(v) {}\n  T get() const { return v_; }\n private:\n  T v_;\n};\n\n\
                 namespace ns_§ {\nint twice(int x) { return 2 * x; }\n}  // namespace ns_§\n\n\
                 int main_§() {\n  std::vector<int> v{1, 2};\n  for (auto& x : v) x += 1;\n  return v.size();\n}\n\n"
            }
            "rust" => {
                "use std::collections::HashMap;\n\n/// A thing.\n#[derive(Debug, Clone)]\npub struct Thing_§ {\n    \
                 name: String,\n}\n\nimpl Thing_§ {\n    pub fn new(name: &str) -> Self {\n        Thing_§ { name: \
                 name.to_owned() }\n    }\n}\n\nmacro_rules! make_§ {\n    ($x:expr) => {\n        Thing_§::new($x)\n    \
                 };\n}\n\nfn run_§(m: &HashMap<String, u32>) -> Option<u32> {\n    let v = m.get(\"a\").copied().unwrap();\n    \
                 Some(v)\n}\n\n#[cfg(test)]\nmod tests_§ {\n    #[test]\n    fn works() {}\n}\n\n"
            }
            "go" => {
                "// Thing holds a name.\ntype Thing_§ struct {\n\tLabel string\n}\n\n\
                 func (t *Thing_§) Hello() string {\n\treturn \"hello \" + t.Label\n}\n\n\
                 var defaults_§ = map[string]int{\n\t\"a\": 1,\n}\n\n\
                 func run_§() error {\n\t_, err := fmt.Println(\"x\")\n\tif err != nil {\n\t\treturn err\n\t}\n\treturn \
                 nil\n}\n\nconst limit_§ = 10\n\n"
            }
            "python" => {
                "import os\nfrom typing import List\n\n# A decorated function.\n@app.route(\"/§\")\ndef view_§(items: \
                 List[int] = []) -> None:\n    total = sum(items) + \\\n        len(items)\n    return None\n\n\
                 class Thing_§(Base):\n    \"\"\"A thing.\n\n    With a long doc.\n    \"\"\"\n\n    def open(self, path):\n        \
                 with open(path, \"w\") as f:\n            f.write(\"x\")\n\n\
                 if os.environ.get(\"§\"):\n    value_§ = [x for x in range(3)]\nelse:\n    value_§ = None\n\n\
                 try:\n    import json\nexcept ImportError:\n    pass\n\n"
            }
            "java" => {
                "/** A thing. */\n@Deprecated\nclass Thing_§ implements Runnable {\n    private final String name;\n\n    \
                 Thing_§(String name) { this.name = name; }\n\n    @Override\n    public void run() {\n        try {\n            \
                 System.out.println(name);\n        } catch (Exception e) {\n        }\n    }\n}\n\n\
                 interface Shape_§ {\n    double area();\n}\n\nenum Color_§ { RED, GREEN }\n\n"
            }
            "javascript" => {
                "import { a } from './a_§.js'\n\n// No semicolons.\nconst x_§ = a\n(function () {})\n\n\
                 let list_§ = [1, 2]\n[3, 4].forEach(v => console.log(v))\n\n\
                 export default class Thing_§ extends Base {\n  constructor(name) {\n    super()\n    this.name = \
                 name\n  }\n  async load() {\n    for (const u of this.urls) {\n      await fetch(u)\n    }\n  }\n}\n\n\
                 function run_§(x) {\n  return x\n    ? `t${x}`\n    : null\n}\n\n"
            }
            "typescript" | "tsx" => {
                "import type { A } from './a_§';\n\n/** Options. */\nexport interface Options_§ {\n  name: string;\n  \
                 retry?: number;\n}\n\nexport type Handler_§ = (o: Options_§) => Promise<any>;\n\n\
                 enum Kind_§ { A = 1, B }\n\n@sealed\nexport class Thing_§<T> implements A {\n  private v: T;\n  \
                 constructor(v: T) { this.v = v; }\n  get(): T { return this.v as T; }\n}\n\n\
                 export function run_§(o: Options_§): any {\n  console.log(o.name)\n  return o.retry ?? 0\n}\n\n\
                 declare module 'm_§' {\n  export const x: number;\n}\n\n"
            }
            other => panic!("no block for {other}"),
        };
        let text = text.replace('§', &n.to_string());
        match grammar {
            "tsx" => format!("{text}export const View{n} = () => <div className=\"v\">{{1}}</div>;\n\n"),
            "go" if n == 0 => format!("package main\n\n{text}"),
            _ => text,
        }
    }

    /// The line of the first error or missing node under `node`.
    fn first_error(node: tree_sitter::Node<'_>, source: &str) -> String {
        if node.is_error() || node.is_missing() {
            let line = node.start_position().row;
            return format!("line {}: {:?}", line + 1, source.lines().nth(line));
        }
        let mut cursor = node.walk();
        let found = node.children(&mut cursor).filter(|c| c.has_error()).map(|c| first_error(c, source)).next();
        found.unwrap_or_default()
    }

    fn children(tree: &Tree, within: &Range<usize>) -> Vec<(usize, usize, String)> {
        let root = tree.root_node();
        let mut cursor = root.walk();
        root.children(&mut cursor)
            .filter(|c| c.start_byte() >= within.start && c.end_byte() <= within.end)
            .map(|c| (c.start_byte(), c.end_byte(), c.to_sexp()))
            .collect()
    }

    /// An item with a syntax error in `grammar`.
    fn broken(grammar: &str) -> &'static str {
        match grammar {
            "c" | "cpp" => "int broken(;\n\n",
            "python" => "def broken(:\n    pass\n\n",
            "java" => "class Broken { int x = ; }\n\n",
            "rust" => "fn broken( {\n}\n\n",
            "go" => "func broken( {\n}\n\n",
            _ => "let broken = 1 +;\n\n",
        }
    }

    /// Parses each run of `source`'s outline, and each pair of adjacent runs, alone: where the
    /// fingerprints agree, the items are the whole parse's there. Returns per run whether it
    /// agreed alone.
    fn check_runs(grammar: &str, source: &str) -> Vec<bool> {
        let language = crate::lang::LANGUAGES.iter().find(|l| l.grammar == grammar).unwrap();
        let data = source.as_bytes();
        let whole = extract::parse_whole(language, data).unwrap();
        let outline = Outline::of(language, &whole, data.len()).unwrap_or_else(|| panic!("{grammar}: no outline"));
        let runs: Vec<Range<usize>> = outline.runs().collect();
        let mut spans = runs.clone();
        spans.extend(runs.windows(2).map(|p| p[0].start..p[1].end));
        let mut agreed = Vec::new();
        for (i, span) in spans.iter().enumerate() {
            let regions = extract::regions(&outline, &[(span.start, span.end)]);
            assert_eq!(regions.iter().map(|r| r.ranges.clone()).collect::<Vec<_>>(), [[span.clone()]]);
            let tree = extract::parse_in(language, data, &ranges_of(data, &regions[0].ranges)).unwrap();
            let agrees = outline.agrees(&tree, &regions[0], grammar);
            if agrees {
                assert_eq!(children(&tree, span), children(&whole, span), "{grammar}: {span:?}");
                assert!(!children(&tree, span).is_empty());
            }
            if i < runs.len() {
                agreed.push(agrees);
            }
        }
        agreed
    }

    /// The outermost nodes of `tree` inside `within` that are no container, wrapper, body or
    /// list of a container (`chain`) and no extra, with their places and syntax, in order.
    fn nodes_inside(tree: &Tree, within: &Range<usize>, chain: &[&str]) -> Vec<(usize, usize, String)> {
        fn visit(
            node: tree_sitter::Node<'_>,
            within: &Range<usize>,
            chain: &[&str],
            out: &mut Vec<(usize, usize, String)>,
        ) {
            let inside = node.start_byte() >= within.start && node.end_byte() <= within.end;
            if inside && node.parent().is_some() && !chain.contains(&node.kind()) {
                if !node.is_extra() {
                    out.push((node.start_byte(), node.end_byte(), node.to_sexp()));
                }
                return;
            }
            let mut cursor = node.walk();
            for child in node.children(&mut cursor) {
                if child.end_byte() > within.start && child.start_byte() < within.end {
                    visit(child, within, chain, out);
                }
            }
        }
        let mut out = Vec::new();
        visit(tree.root_node(), within, chain, &mut out);
        out.sort();
        out
    }

    /// The places of the extras (comments) of `tree` inside `within`, wherever they hang.
    fn extras(tree: &Tree, within: &Range<usize>) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut cursor = tree.walk();
        loop {
            let node = cursor.node();
            if node.is_extra() && node.start_byte() >= within.start && node.end_byte() <= within.end {
                out.push((node.start_byte(), node.end_byte()));
            }
            let inside = node.end_byte() > within.start && node.start_byte() < within.end;
            if !(inside && cursor.goto_first_child()) {
                while !cursor.goto_next_sibling() {
                    if !cursor.goto_parent() {
                        out.sort_unstable();
                        return out;
                    }
                }
            }
        }
    }

    /// Parses each run of a container's items of `source`'s outline with the container's header
    /// and footer: where the fingerprints agree, the items are the whole parse's there. Returns
    /// per run whether it agreed.
    fn check_container_runs(grammar: &str, source: &str, marker: &str) -> Vec<bool> {
        let language = crate::lang::LANGUAGES.iter().find(|l| l.grammar == grammar).unwrap();
        let data = source.as_bytes();
        let whole = extract::parse_whole(language, data).unwrap();
        let outline = Outline::of(language, &whole, data.len()).unwrap_or_else(|| panic!("{grammar}: no outline"));
        let mut agreed = Vec::new();
        for (at, _) in source.match_indices(marker) {
            let regions = extract::regions(&outline, &[(at, at + marker.len())]);
            assert_eq!(regions.len(), 1);
            let region = &regions[0];
            assert!(
                region.len() * 4 < data.len(),
                "{grammar}: {marker} at {at} is not in a container's run: {region:?}"
            );
            let tree = extract::parse_in(language, data, &ranges_of(data, &region.ranges)).unwrap();
            let agrees = outline.agrees(&tree, region, grammar);
            if agrees {
                let run = region.ranges.iter().find(|r| r.contains(&at)).unwrap().clone();
                let chain = extract::chain_kinds(grammar);
                let (parts, all) = (nodes_inside(&tree, &run, &chain), nodes_inside(&whole, &run, &chain));
                assert_eq!(parts, all, "{grammar}: {run:?}");
                assert_eq!(extras(&tree, &run), extras(&whole, &run), "{grammar}: {run:?}");
                assert!(!parts.is_empty());
            }
            agreed.push(agrees);
        }
        agreed
    }

    /// Checks that `source`, a sample of `grammar` without syntax errors, has every run of its
    /// containers' items agree (at least `min` runs, one per call of `probe`); returns its
    /// outline.
    fn every_container_run_agrees(grammar: &str, source: &str, min: usize) -> Outline {
        let language = crate::lang::LANGUAGES.iter().find(|l| l.grammar == grammar).unwrap();
        let whole = extract::parse_whole(language, source.as_bytes()).unwrap();
        assert!(!whole.root_node().has_error(), "{grammar}: {}", first_error(whole.root_node(), source));
        let agreed = check_container_runs(grammar, source, "probe(");
        assert!(agreed.len() >= min && agreed.iter().all(|&a| a), "{grammar}: {agreed:?}");
        Outline::of(language, &whole, source.len()).unwrap()
    }

    /// A file of `grammar` with a container (a class, an impl block) of many members, each of
    /// which calls `probe`, between two top-level items.
    fn container(grammar: &str) -> String {
        let (open, member, close) = match grammar {
            "python" => (
                "import os\n\n\n@dataclass\nclass Session(Base, metaclass=Meta):\n    \"\"\"A session.\"\"\"\n\n    \
                 limit = 10\n\n",
                "    # Member §.\n    @property\n    def member_§(self, value=None):\n        if isinstance(value, \
                 (list, tuple)):\n            return [probe(v) for v in value]\n        data = {\"k\": 1,\n                \
                 \"v\": value}\n        return probe(data)  # probe\n\n",
                "\ndef after():\n    return None\n",
            ),
            "java" => (
                "package a.b;\n\nimport java.util.List;\n\n/** A session. */\n@Deprecated\npublic class Session \
                 extends Base implements Runnable {\n    private int limit = 10;\n\n",
                "    /** Member §. */\n    @Override\n    public List<String> member§(List<String> value) {\n        \
                 for (String v : value) {\n            probe(v);\n        }\n        return probe(value);\n    }\n\n",
                "}\n\nclass After {\n    void run() {}\n}\n",
            ),
            "cpp" => (
                "#include <string>\n\n// A session.\nnamespace storage {\n\nstatic const int kLimit = 10;\n\n",
                "// Member §.\nStatus Session::Member§(const Slice& value) {\n  for (int i = 0; i < kLimit; i++) \
                 {\n    probe(value[i]);\n  }\n  return probe(value);\n}\n\n",
                "}  // namespace storage\n\nint after() { return 0; }\n",
            ),
            "rust" => (
                "use std::fmt;\n\n/// A session.\n#[derive(Debug)]\npub struct Session {\n    limit: u32,\n}\n\n\
                 impl Session {\n    const LIMIT: u32 = 10;\n\n",
                "    /// Member §.\n    #[inline]\n    pub fn member_§(&self, value: &[u32]) -> Option<u32> {\n        \
                 for v in value {\n            probe(*v);\n        }\n        probe(self.limit)\n    }\n\n",
                "}\n\nfn after() {}\n",
            ),
            _ => (
                "import { a } from './a';\n\n/** A session. */\nexport class Session extends Base {\n  \
                 private limit = 10;\n\n",
                "  /** Member §. */\n  async member§(value: string[]): Promise<number> {\n    for (const v of \
                 value) {\n      await probe(v)\n    }\n    return probe(this.limit)\n  }\n\n",
                "}\n\nfunction after() {\n  return null\n}\n",
            ),
        };
        let members: String = (0..24).map(|n| member.replace('§', &n.to_string())).collect();
        format!("{open}{members}{close}")
    }

    /// A file of `grammar` with a long function whose statements call `probe`, between two
    /// top-level items.
    fn long_function(grammar: &str) -> String {
        let (open, statement, close) = match grammar {
            "python" => (
                "import os\n\n\n@app.route(\"/\")\ndef handler(request, limit=10):\n    \"\"\"A handler.\"\"\"\n",
                "    # Step §.\n    value_§ = probe(request.args.get(\"k§\"), limit)\n    if value_§:\n        \
                 probe(value_§)\n\n",
                "    return None\n\n\ndef after():\n    return None\n",
            ),
            "c" | "cpp" => (
                "#include <stdio.h>\n\n/* A handler. */\nstatic int handler(struct req *r, int limit)\n{\n\tint total \
                 = 0;\n\n",
                "\t/* Step §. */\n\ttotal += probe(r->v[§], limit);\n\tif (total > §)\n\t\tprobe(total);\n\n",
                "\treturn total;\n}\n\nint after(void) { return 0; }\n",
            ),
            "go" => (
                "package main\n\n// handler handles.\nfunc handler(r *Req, limit int) int {\n\ttotal := 0\n",
                "\t// Step §.\n\ttotal += probe(r.V[§], limit)\n\tif total > § {\n\t\tprobe(total)\n\t}\n\n",
                "\treturn total\n}\n\nfunc after() {}\n",
            ),
            "rust" => (
                "use std::fmt;\n\n/// A handler.\nfn handler(r: &Req, limit: usize) -> usize {\n    let mut total = 0;\n",
                "    // Step §.\n    total += probe(r.v[§], limit);\n    if total > § {\n        probe(total);\n    }\n\n",
                "    total\n}\n\nfn after() {}\n",
            ),
            _ => (
                "import { a } from './a'\n\n/** A handler. */\nexport function handler(r, limit) {\n  let total = 0\n",
                "  // Step §.\n  total += probe(r.v[§], limit)\n  if (total > §) {\n    probe(total)\n  }\n\n",
                "  return total\n}\n\nfunction after() {\n  return null\n}\n",
            ),
        };
        let statements: String = (0..40).map(|n| statement.replace('§', &n.to_string())).collect();
        format!("{open}{statements}{close}")
    }

    /// A file of `grammar` with a container of three long methods (functions in a C++
    /// namespace) whose statements call `probe`.
    fn long_methods(grammar: &str) -> String {
        let (open, method, statement, end, close) = match grammar {
            "python" => (
                "import os\n\n\nclass Service(Base):\n    \"\"\"A service.\"\"\"\n\n",
                "    @cached\n    def handle_¶(self, request, limit=10):\n",
                "        # Step §.\n        value_§ = probe(request.args.get(\"k§\"), limit)\n        if value_§:\n            \
                 probe(value_§)\n\n",
                "        return None\n\n",
                "\ndef after():\n    return None\n",
            ),
            "java" => (
                "package a;\n\npublic class Service {\n",
                "    public int handle¶(Req r, int limit) {\n        int total = 0;\n",
                "        // Step §.\n        total += probe(r.v[§], limit);\n        if (total > §) {\n            \
                 probe(total);\n        }\n\n",
                "        return total;\n    }\n\n",
                "}\n",
            ),
            "rust" => (
                "struct Service;\n\nimpl Service {\n",
                "    pub fn handle_¶(&self, r: &Req, limit: usize) -> usize {\n        let mut total = 0;\n",
                "        // Step §.\n        total += probe(r.v[§], limit);\n        if total > § {\n            \
                 probe(total);\n        }\n\n",
                "        total\n    }\n\n",
                "}\n\nfn after() {}\n",
            ),
            "cpp" => (
                "#include <string>\n\nnamespace storage {\n\n",
                "int Service::Handle¶(const Req& r, int limit) {\n  int total = 0;\n",
                "  // Step §.\n  total += probe(r.v[§], limit);\n  if (total > §) {\n    probe(total);\n  }\n\n",
                "  return total;\n}\n\n",
                "}  // namespace storage\n",
            ),
            _ => (
                "import { a } from './a'\n\nexport class Service extends Base {\n",
                "  async handle¶(r, limit) {\n    let total = 0\n",
                "    // Step §.\n    total += probe(r.v[§], limit)\n    if (total > §) {\n      probe(total)\n    \
                 }\n\n",
                "    return total\n  }\n\n",
                "}\n\nfunction after() {\n  return null\n}\n",
            ),
        };
        let mut source = open.to_owned();
        for m in 0..3 {
            source.push_str(&method.replace('¶', &m.to_string()));
            for n in 0..20 {
                source.push_str(&statement.replace('§', &((m + 1) * 100 + n).to_string()));
            }
            source.push_str(end);
        }
        source.push_str(close);
        source
    }

    #[test]
    fn each_run_of_a_methods_statements_parses_with_both_headers_and_footers_as_in_the_whole_file() {
        for grammar in ["python", "java", "rust", "cpp", "typescript", "tsx", "javascript"] {
            let source = long_methods(grammar);
            let outline = every_container_run_agrees(grammar, &source, 120);
            // A statement of the second method: both headers, a run of its statements, both
            // footers.
            let at = source.find("probe(r.v[210]").or_else(|| source.find("probe(request.args.get(\"k210\")")).unwrap();
            let regions = extract::regions(&outline, &[(at, at + 5)]);
            assert_eq!(regions.len(), 1);
            assert!(regions[0].len() * 6 < source.len(), "{grammar}: {} of {}", regions[0].len(), source.len());
            let method =
                source.find("handle_1").or_else(|| source.find("handle1")).or_else(|| source.find("Handle1")).unwrap();
            assert!(regions[0].ranges.iter().any(|r| r.contains(&method)), "{grammar}: {:?}", regions[0].ranges);
        }
    }

    #[test]
    fn each_run_of_a_functions_statements_parses_with_its_header_and_footer_as_in_the_whole_file() {
        for grammar in ["python", "c", "cpp", "go", "rust", "typescript", "tsx", "javascript"] {
            every_container_run_agrees(grammar, &long_function(grammar), 80);
        }
    }

    /// A test file of `grammar`: one `describe(...)` call whose callback holds many tests,
    /// each calling `probe`, and a nested `describe` with long tests of its own.
    fn callbacks(grammar: &str) -> String {
        let test = "  // Test §.\n  it('does §', async () => {\n    const v§ = probe(§)\n    \
                    expect(JSON.stringify(v§)).toBe('§')\n  })\n\n";
        let long = "    it('runs ¶', () => {\n§    })\n\n";
        let step = "      const s§ = probe(§, 'step')\n      expect(s§).toBeDefined()\n";
        let mut text = String::from("import { describe, it, expect } from 'vitest'\n\ndescribe('session', () => {\n");
        for n in 0..60 {
            text.push_str(&test.replace('§', &n.to_string()));
        }
        text.push_str("  describe.each([1, 2])('nested %i', (k) => {\n");
        for m in 0..3 {
            let steps: String = (0..40).map(|n| step.replace('§', &format!("{m}_{n}"))).collect();
            text.push_str(&long.replace('¶', &m.to_string()).replace('§', &steps));
        }
        text.push_str("  })\n})\n\nexport const after = 1\n");
        if grammar == "typescript" || grammar == "tsx" {
            text = text.replace("(k) =>", "(k: number) =>");
        }
        text
    }

    #[test]
    fn each_run_of_a_callbacks_statements_parses_with_the_calls_header_and_footer_as_in_the_whole_file() {
        for grammar in ["typescript", "tsx", "javascript"] {
            let outline = every_container_run_agrees(grammar, &callbacks(grammar), 100);
            assert!(outline.has_containers(), "{grammar}");
        }
    }

    #[test]
    fn a_run_of_a_functions_statements_that_reads_otherwise_alone_falls_back_to_its_top_level_run() {
        let language = crate::lang::by_name("c").unwrap();
        let filler: String = (0..6)
            .map(|n| format!("int filler_{n}(int x)\n{{\n{}\treturn x;\n}}\n\n", "\tx = x * 3 + 1;\n".repeat(40)))
            .collect();
        let source = format!("{}\n{filler}", long_function("c"));
        let data = source.as_bytes();
        let whole = extract::parse_whole(language, data).unwrap();
        let outline = Outline::of(language, &whole, data.len()).unwrap();
        let at = source.find("probe(r->v[20]").unwrap();
        let alone = parse(language, data, Some(&outline), Some(&[(at, at + 5)])).unwrap();
        let changed = outline.clone().with_container_prints_changed();
        let fallback = parse(language, data, Some(&changed), Some(&[(at, at + 5)])).unwrap();
        let run = outline.runs().find(|r| r.contains(&at)).unwrap();
        assert!(alone.bytes < 1024, "{}", alone.bytes);
        assert_eq!(fallback.bytes, run.len());
        assert!(run.len() * 2 < data.len());
        for parsed in [&alone, &fallback] {
            let node = parsed.trees[0].root_node().descendant_for_byte_range(at, at + 5).unwrap();
            let same = whole.root_node().descendant_for_byte_range(at, at + 5).unwrap();
            assert_eq!((node.kind(), node.start_position()), (same.kind(), same.start_position()));
        }
    }

    #[test]
    fn each_run_of_a_containers_items_parses_with_its_header_and_footer_as_in_the_whole_file() {
        for grammar in ["python", "java", "rust", "typescript", "tsx", "javascript", "cpp"] {
            let mut source = container(grammar);
            if grammar == "javascript" {
                source =
                    source.replace("private limit = 10;", "limit = 10;").replace(": string[]): Promise<number>", ")");
            }
            let outline = every_container_run_agrees(grammar, &source, 48);
            // A region of a container's items parses far less than the file.
            let at = ["member_5", "member5", "Member5"].iter().find_map(|m| source.find(m)).unwrap();
            let regions = extract::regions(&outline, &[(at, at + 6)]);
            assert!(regions[0].len() * 4 < source.len(), "{grammar}: {} of {}", regions[0].len(), source.len());
        }
    }

    #[test]
    fn a_container_run_that_differs_is_not_taken_and_a_span_in_a_header_takes_the_whole_run() {
        let language = crate::lang::by_name("python").unwrap();
        let source = container("python");
        let data = source.as_bytes();
        let whole = extract::parse_whole(language, data).unwrap();
        let outline = Outline::of(language, &whole, data.len()).unwrap();
        // The header: the top-level run that holds the class.
        let at = source.find("metaclass").unwrap();
        let regions = extract::regions(&outline, &[(at, at + 4)]);
        assert_eq!(regions.len(), 1);
        assert_eq!(regions[0].ranges.len(), 1);
        assert!(regions[0].ranges[0].start <= source.find("@dataclass").unwrap());
        // Spans in the header and in a member: the member's run is left to the whole run.
        let member = source.find("member_7").unwrap();
        assert_eq!(extract::regions(&outline, &[(at, at + 4), (member, member + 3)]), regions);
        // Content the outline was not made for: its fingerprints differ, the whole file is parsed.
        let other = source.replacen("return probe(data)  # probe", "return probe(data)  or (pr)", 1);
        let other_outline =
            Outline::of(language, &extract::parse_whole(language, other.as_bytes()).unwrap(), other.len());
        let at = source.find("return probe(data)").unwrap();
        let parsed = parse(language, data, other_outline.as_ref(), Some(&[(at, at + 6)])).unwrap();
        assert_eq!((parsed.trees.len(), parsed.bytes), (1, data.len()));
        // With its own outline, only a run of members and the header are parsed.
        let parsed = parse(language, data, Some(&outline), Some(&[(at, at + 6)])).unwrap();
        assert!(parsed.bytes * 4 < data.len(), "{} of {}", parsed.bytes, data.len());
    }

    #[test]
    fn each_run_of_items_parses_alone_as_in_the_whole_file() {
        for grammar in extract::OUTLINE_GRAMMARS {
            let source: String = (0..8).map(|n| block(grammar, n)).collect();
            let language = crate::lang::LANGUAGES.iter().find(|l| l.grammar == *grammar).unwrap();
            let whole = extract::parse_whole(language, source.as_bytes()).unwrap();
            let root = whole.root_node();
            assert!(!root.has_error(), "{grammar}: the sample has an error: {}", first_error(root, &source));
            let agreed = check_runs(grammar, &source);
            assert!(agreed.len() >= 4 && agreed.iter().all(|&a| a), "{grammar}: {agreed:?}");
        }
    }

    #[test]
    fn runs_beside_an_item_with_errors_parse_alone_and_a_run_that_differs_is_parsed_whole() {
        for grammar in extract::OUTLINE_GRAMMARS {
            let source: String =
                (0..8)
                    .map(|n| {
                        if n % 3 == 1 { format!("{}{}", broken(grammar), block(grammar, n)) } else { block(grammar, n) }
                    })
                    .collect();
            let agreed = check_runs(grammar, &source);
            assert!(agreed.iter().filter(|&&a| a).count() * 2 >= agreed.len(), "{grammar}: {agreed:?}");
        }
        // A fingerprint that does not agree: the whole file is parsed.
        let language = crate::lang::by_name("c").unwrap();
        let source: String = (0..8).map(|n| block("c", n)).collect();
        let other = source.replacen("b->len);", "b->len)+", 1);
        let outline = Outline::of(language, &extract::parse_whole(language, other.as_bytes()).unwrap(), other.len());
        let at = source.find("memcpy(b->data").unwrap();
        let parsed = parse(language, source.as_bytes(), outline.as_ref(), Some(&[(at, at + 6)])).unwrap();
        assert_eq!((parsed.trees.len(), parsed.bytes), (1, source.len()));
    }

    #[test]
    fn only_the_runs_holding_a_span_are_parsed_and_nodes_keep_their_places() {
        let language = crate::lang::by_name("c").unwrap();
        let source: String = (0..8).map(|n| block("c", n)).collect();
        let data = source.as_bytes();
        let whole = extract::parse_whole(language, data).unwrap();
        let outline = Outline::of(language, &whole, data.len()).unwrap();
        let at = source.find("memcpy(b->data, s, b->len)").unwrap();
        let parsed = parse(language, data, Some(&outline), Some(&[(at, at + 6)])).unwrap();
        assert_eq!(parsed.trees.len(), 1);
        assert!(parsed.bytes * 4 < data.len(), "{} of {}", parsed.bytes, data.len());
        let node = parsed.trees[0].root_node().descendant_for_byte_range(at, at + 6).unwrap();
        let same = whole.root_node().descendant_for_byte_range(at, at + 6).unwrap();
        assert_eq!(
            (node.kind(), node.start_position(), node.end_position()),
            (same.kind(), same.start_position(), same.end_position())
        );
        // An outline made for other content is not used.
        let longer = format!("{source}\n");
        let parsed = parse(language, longer.as_bytes(), Some(&outline), Some(&[(at, at + 6)])).unwrap();
        assert_eq!(parsed.bytes, longer.len());
    }
}
