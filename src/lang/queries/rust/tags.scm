; Rust definitions.
;
; Compiling a query, tree-sitter analyses every named node that holds another against the
; parse states of the grammar it can occur in: the nodes inside a pattern's outermost one are
; wildcards (`(_ name: ...)`, which tree-sitter does not analyse) whose kinds the extractor
; checks (`#kind-is?`), as it checks where a pattern's node sits (`#parent-is?`). With them
; named, the query took 58 ms to compile, paid by every process that parses Rust.

(struct_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(union_item name: (type_identifier) @name) @definition.union
(type_item name: (type_identifier) @name) @definition.type
(trait_item name: (type_identifier) @name) @definition.trait
(mod_item name: (identifier) @name) @definition.module
(macro_definition name: (identifier) @name) @definition.macro
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.variable

((enum_variant name: (identifier) @name) @definition.enum_member
  (#parent-is? @definition.enum_member enum_variant_list))
((field_declaration name: (field_identifier) @name) @definition.field
  (#parent-is? @definition.field field_declaration_list))

; Functions inside an impl or trait body are methods; the rest are functions.
((impl_item body: (_ (_ name: (identifier) @name) @definition.method))
  (#kind-is? @definition.method function_item))
((trait_item body: (_ (_ name: (identifier) @name) @definition.method))
  (#kind-is? @definition.method function_item))
((trait_item body: (_ (_ name: (identifier) @name) @declaration.method))
  (#kind-is? @declaration.method function_signature_item))
(function_item name: (identifier) @name) @definition.function
((foreign_mod_item body: (_ (_ name: (identifier) @name) @declaration.function))
  (#kind-is? @declaration.function function_signature_item))

; An impl block qualifies its items with the type's name (`Index::find`) without being a symbol.
((impl_item type: [(type_identifier) @name
                   (_ type: (type_identifier) @name) @_generic
                   (_ name: (type_identifier) @name) @_scoped]) @scope
  (#kind-is? @_generic generic_type) (#kind-is? @_scoped scoped_type_identifier))

; References, for the symbol graph: calls (functions, methods, paths, macros), `use` paths and
; `mod x;` as imports, the names a `use` brings in, type names, paths and names passed as
; arguments, and field reads. Parameters, `let` and closure bindings are local.
; (The callee's kinds stay named: as a wildcard, a state would be tried over every callee's
; receiver chain, `a.b().c().d()`, which made matching slower than the compile it saves.)
(call_expression function: [(identifier) @name
                            (field_expression field: (field_identifier) @name)
                            (scoped_identifier name: (identifier) @name)
                            (generic_function function: [(identifier) @name
                                                         (scoped_identifier name: (identifier) @name)
                                                         (field_expression field: (field_identifier) @name)])]) @reference.call
((macro_invocation macro: [(identifier) @name (_ name: (identifier) @name) @_scoped]) @reference.call
  (#kind-is? @_scoped scoped_identifier))
((struct_expression name: [(type_identifier) @name (_ name: (type_identifier) @name) @_scoped]) @reference.class
  (#kind-is? @_scoped scoped_type_identifier))
(use_declaration argument: [(scoped_identifier) (identifier)] @name) @reference.import
((use_declaration argument: (_ path: (_) @name) @_as) @reference.import
  (#kind-is? @_as use_as_clause))
((use_declaration argument: (_ path: (_) @name) @_list) @reference.import
  (#kind-is? @_list scoped_use_list))
((use_declaration argument: (_ (_) @name) @_wildcard) @reference.import
  (#kind-is? @_wildcard use_wildcard))
(mod_item name: (identifier) @name !body) @reference.import
((use_declaration argument: (_ name: (identifier) @name) @_scoped) @reference.name
  (#kind-is? @_scoped scoped_identifier))
((use_list [(identifier) @name (_ name: (identifier) @name) @_scoped]) @reference.name
  (#kind-is? @_scoped scoped_identifier))
(use_as_clause alias: (identifier) @reference.none)
(type_identifier) @name @reference.type
(arguments [(identifier) @name (scoped_identifier name: (identifier) @name)]) @reference.name
(scoped_identifier name: (identifier) @name) @reference.name
(field_expression field: (field_identifier) @name) @reference.name
; Inside macro arguments (`assert_eq!(f(x), y)`, `format!("{}", self.name())`) there is no
; syntax tree, only tokens: a name followed by a parenthesized token tree is a call, any other
; name a use.
((token_tree (identifier) @name . (_ . "(") @_tokens) @reference.call
  (#kind-is? @_tokens token_tree))
(token_tree (identifier) @name) @reference.name
((parameter pattern: [(identifier) @local.definition
                      (_ (identifier) @local.definition) @_pattern])
  (#kind-is? @_pattern mut_pattern reference_pattern))
((let_declaration pattern: [(identifier) @local.definition
                            (_ (identifier) @local.definition) @_pattern])
  (#kind-is? @_pattern mut_pattern tuple_pattern))
((closure_parameters [(identifier) @local.definition (_ pattern: (identifier) @local.definition) @_parameter])
  (#kind-is? @_parameter parameter))
(for_expression pattern: (identifier) @local.definition)
(type_parameter name: (type_identifier) @local.definition)
