; Python definitions.
;
; Compiling a query, tree-sitter analyses every named node that holds another against the
; parse states of the grammar it can occur in: the nodes inside a pattern's outermost one are
; wildcards (`(_ ...)`, which tree-sitter does not analyse) whose kinds the extractor checks
; (`#kind-is?`), as it checks where a pattern's node sits (`#parent-is?`, `#grandparent-is?`);
; a wildcard stands in a field (`body: (_ ...)`, one node) or close to the pattern's node, never
; as a chain of children under a node as wide as the module, and a pattern for module-level
; names keeps `module` as its outermost node rather than `#parent-is?` (checked after a match,
; that would match every assignment of the file).
; With them named, the query took 55 ms to compile, paid by every process that parses Python.

(class_definition name: (identifier) @name) @definition.class

; A function directly in a class body is a method; `__init__` is the constructor.
(class_definition
  body: (block
          [(function_definition name: (identifier) @name) @definition.method
           (decorated_definition definition: (function_definition name: (identifier) @name) @definition.method)]))
(function_definition name: (identifier) @name) @definition.function

; Module-level assignments: UPPER_CASE names are constants, the rest variables (one pattern
; each: a pair with `#match?` and `#not-match?` compiles in twice the time).
((module (expression_statement (_ left: (identifier) @name) @definition.variable))
  (#kind-is? @definition.variable assignment)
  (#kind-if-match? @name "^_*[A-Z][A-Z0-9_]*$" constant))
; Assignments in a module-level `if`, `try`, `with` or loop (`if TYPE_CHECKING:`, a fallback
; for an import that failed) bind names of the module too, as do those in their `else`,
; `elif`, `except` and `finally` clauses.
; (`block` and `expression_statement` stay named: as wildcards, a state would be tried for
; every node of the module down to the assignment's depth, which made matching slower than
; the compile they save.)
((module (_ (block (expression_statement (_ left: (identifier) @name) @definition.variable))) @_in)
  (#kind-is? @_in if_statement try_statement with_statement for_statement while_statement)
  (#kind-is? @definition.variable assignment)
  (#kind-if-match? @name "^_*[A-Z][A-Z0-9_]*$" constant))
((module (_ (_ (block (expression_statement (_ left: (identifier) @name) @definition.variable))) @_in))
  (#kind-is? @_in else_clause elif_clause except_clause finally_clause)
  (#kind-is? @definition.variable assignment)
  (#kind-if-match? @name "^_*[A-Z][A-Z0-9_]*$" constant))
; Class attributes.
((class_definition
   body: (_ (expression_statement (_ left: (identifier) @name) @definition.field)) @_block)
  (#kind-is? @_block block) (#kind-is? @definition.field assignment))
; Instance attributes: the first `self.x = ...` of a class's methods is the class's field `x`;
; a later one is a use of it (a reference), as is one outside any class.
((assignment left: (_ object: (identifier) @_self attribute: (identifier) @name) @definition.field)
  (#eq? @_self "self")
  (#kind-is? @definition.field attribute))

; References, for the symbol graph: calls, imports (the module as written), type annotations,
; and every other name read; names bound in a function (parameters, assignments, loop targets)
; are local there.
((call function: [(identifier) @name (_ attribute: (identifier) @name) @_attribute]) @reference.call
  (#kind-is? @_attribute attribute))
((import_statement name: [(dotted_name) @name (_ name: (dotted_name) @name) @_aliased]) @reference.import
  (#kind-is? @_aliased aliased_import))
(import_from_statement module_name: [(dotted_name) (relative_import)] @name) @reference.import
((import_from_statement name: [(_ (identifier) @name) @_dotted
                               (_ name: (_ (identifier) @name) @_dotted) @_aliased]) @reference.import_name
  (#kind-is? @_dotted dotted_name) (#kind-is? @_aliased aliased_import))
(import_from_statement (wildcard_import) @name) @reference.import_name
((import_from_statement module_name: [(_ (identifier) @name @reference.none) @_dotted
                                      (_ (_ (identifier) @name @reference.none) @_dotted) @_relative])
  (#kind-is? @_dotted dotted_name) (#kind-is? @_relative relative_import))
((import_statement name: [(_ (identifier) @name @reference.none) @_dotted
                          (_ (_ (identifier) @name @reference.none) @_dotted) @_aliased])
  (#kind-is? @_dotted dotted_name) (#kind-is? @_aliased aliased_import))
(aliased_import alias: (identifier) @name @reference.none)
((type [(identifier) @name
        (_ (identifier) @name) @_generic
        (_ attribute: (identifier) @name) @_attribute]) @reference.type
  (#kind-is? @_generic generic_type) (#kind-is? @_attribute attribute))
(attribute attribute: (identifier) @name) @reference.name
((identifier) @name @reference.name
  (#not-any-of? @name "self" "cls"))
(keyword_argument name: (identifier) @name @reference.none)
((parameters [(identifier) @local.definition
              (_ name: (identifier) @local.definition) @_default
              (_ (identifier) @local.definition) @_typed])
  (#kind-is? @_default default_parameter typed_default_parameter)
  (#kind-is? @_typed typed_parameter list_splat_pattern dictionary_splat_pattern))
((lambda_parameters [(identifier) @local.definition
                     (_ name: (identifier) @local.definition) @_default])
  (#kind-is? @_default default_parameter))
((assignment left: [(identifier) @local.definition
                    (_ (identifier) @local.definition) @_pattern])
  (#kind-is? @_pattern pattern_list tuple_pattern))
(augmented_assignment left: (identifier) @local.definition)
((for_statement left: [(identifier) @local.definition (_ (identifier) @local.definition) @_pattern])
  (#kind-is? @_pattern pattern_list))
((for_in_clause left: [(identifier) @local.definition (_ (identifier) @local.definition) @_pattern])
  (#kind-is? @_pattern pattern_list))
((with_item value: (_ alias: (_ (identifier) @local.definition) @_target) @_as)
  (#kind-is? @_as as_pattern) (#kind-is? @_target as_pattern_target))
((except_clause (as_pattern alias: (_ (identifier) @local.definition) @_target))
  (#kind-is? @_target as_pattern_target))
(named_expression name: (identifier) @local.definition)

; Values bound to names, kept to type receivers (never uses): `app = Flask(...)`,
; `client = app.test_client()`, `with app.app_context() as ctx`, and what a function returns
; or yields (`return app`); a name imported under another (`from .app import App as Base`);
; a loop's variable, bound to an element of what it loops over.
(assignment left: (identifier) @name right: (_) @value) @reference.binding
((with_item value: (_ (_) @value alias: (_ (identifier) @name) @_target) @_as) @reference.binding
  (#kind-is? @_as as_pattern) (#kind-is? @_target as_pattern_target))
((import_from_statement name: (_ name: (dotted_name) @value alias: (identifier) @name) @_aliased) @reference.binding
  (#kind-is? @_aliased aliased_import))
(for_statement left: (identifier) @name right: (_) @value) @reference.binding
(for_in_clause left: (identifier) @name right: (_) @value) @reference.binding
(return_statement (_) @value) @reference.binding
(yield (_) @value) @reference.binding
