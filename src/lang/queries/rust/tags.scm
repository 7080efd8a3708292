; Rust definitions.

(struct_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(union_item name: (type_identifier) @name) @definition.union
(type_item name: (type_identifier) @name) @definition.type
(trait_item name: (type_identifier) @name) @definition.trait
(mod_item name: (identifier) @name) @definition.module
(macro_definition name: (identifier) @name) @definition.macro
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.variable

(enum_variant_list (enum_variant name: (identifier) @name) @definition.enum_member)
(field_declaration_list (field_declaration name: (field_identifier) @name) @definition.field)

; Functions inside an impl or trait body are methods; the rest are functions.
(impl_item body: (declaration_list (function_item name: (identifier) @name) @definition.method))
(trait_item body: (declaration_list (function_item name: (identifier) @name) @definition.method))
(trait_item body: (declaration_list (function_signature_item name: (identifier) @name) @declaration.method))
(function_item name: (identifier) @name) @definition.function
(foreign_mod_item body: (declaration_list (function_signature_item name: (identifier) @name) @declaration.function))

; An impl block qualifies its items with the type's name (`Index::find`) without being a symbol.
(impl_item type: [(type_identifier) @name
                  (generic_type type: (type_identifier) @name)
                  (scoped_type_identifier name: (type_identifier) @name)]) @scope

; References, for the symbol graph: calls (functions, methods, paths, macros), `use` paths and
; `mod x;` as imports, the names a `use` brings in, type names, paths and names passed as
; arguments, and field reads. Parameters, `let` and closure bindings are local.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call
(call_expression function: (scoped_identifier name: (identifier) @name)) @reference.call
(call_expression function: (generic_function function: [(identifier) @name
                                                          (scoped_identifier name: (identifier) @name)
                                                          (field_expression field: (field_identifier) @name)])) @reference.call
(macro_invocation macro: [(identifier) @name (scoped_identifier name: (identifier) @name)]) @reference.call
(struct_expression name: [(type_identifier) @name (scoped_type_identifier name: (type_identifier) @name)]) @reference.class
(use_declaration argument: [(scoped_identifier) (identifier)] @name) @reference.import
(use_declaration argument: (use_as_clause path: (_) @name)) @reference.import
(use_declaration argument: (scoped_use_list path: (_) @name)) @reference.import
(use_declaration argument: (use_wildcard (_) @name)) @reference.import
(mod_item name: (identifier) @name !body) @reference.import
(use_declaration argument: (scoped_identifier name: (identifier) @name)) @reference.name
(use_list [(identifier) @name (scoped_identifier name: (identifier) @name)]) @reference.name
(use_as_clause alias: (identifier) @reference.none)
(type_identifier) @name @reference.type
(arguments [(identifier) @name (scoped_identifier name: (identifier) @name)]) @reference.name
(scoped_identifier name: (identifier) @name) @reference.name
(field_expression field: (field_identifier) @name) @reference.name
; Inside macro arguments (`assert_eq!(f(x), y)`, `format!("{}", self.name())`) there is no
; syntax tree, only tokens: a name followed by a parenthesized token tree is a call, any other
; name a use.
(token_tree (identifier) @name . (token_tree . "(")) @reference.call
(token_tree (identifier) @name) @reference.name
(parameter pattern: [(identifier) @local.definition
                     (mut_pattern (identifier) @local.definition)
                     (reference_pattern (identifier) @local.definition)])
(let_declaration pattern: [(identifier) @local.definition
                           (mut_pattern (identifier) @local.definition)
                           (tuple_pattern (identifier) @local.definition)])
(closure_parameters [(identifier) @local.definition (parameter pattern: (identifier) @local.definition)])
(for_expression pattern: (identifier) @local.definition)
(type_parameter name: (type_identifier) @local.definition)
