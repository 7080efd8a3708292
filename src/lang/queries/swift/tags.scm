; Swift definitions.
;
; Compiling a query, tree-sitter analyses every named node that holds another against the
; parse states of the grammar it can occur in: the nodes inside a pattern's outermost one are
; wildcards (`(_ ...)`, which tree-sitter does not analyse) whose kinds the extractor checks
; (`#kind-is?`), as it checks where a pattern's node sits (`#parent-is?`).

(class_declaration declaration_kind: "class" name: (type_identifier) @name) @definition.class
(class_declaration declaration_kind: "actor" name: (type_identifier) @name) @definition.class
(class_declaration declaration_kind: "struct" name: (type_identifier) @name) @definition.struct
(class_declaration declaration_kind: "enum" name: (type_identifier) @name) @definition.enum
(protocol_declaration name: (type_identifier) @name) @definition.interface
; `case a, b` is one entry with two names: each name is then its own definition, so that `b`
; does not nest inside `a`. An entry with one name is the definition of that name.
((enum_entry name: (simple_identifier) @name @definition.enum_member) @_entry
  (#match? @_entry "^[^(=]*(\\([^)]*\\))?\\s*,"))
((enum_entry name: (simple_identifier) @name) @definition.enum_member
  (#not-match? @definition.enum_member "^[^(=]*(\\([^)]*\\))?\\s*,"))
(typealias_declaration name: (type_identifier) @name) @definition.type
(associatedtype_declaration name: (type_identifier) @name) @definition.type

; An extension qualifies its members with the extended type (`Playlist.sorted`).
(class_declaration declaration_kind: "extension" name: (user_type) @name) @scope

; Members of types and extensions. Protocol requirements have no body: they only declare.
(init_declaration name: "init" @name body: (function_body)) @definition.constructor
(init_declaration name: "init" @name) @declaration.constructor
(deinit_declaration "deinit" @name) @definition.method
(subscript_declaration "subscript" @name) @definition.method
; Operators (`static func ==`) are named by their token. The kinds are checked by the extractor
; (`#kind-is?`): a list of the tokens in the pattern made this query take 0.4 s to compile.
((function_declaration name: _ @name) @definition.method
  (#parent-is? @definition.method class_body enum_class_body)
  (#kind-is? @name simple_identifier custom_operator bang "==" "!=" "===" "!==" "<" ">" "<=" ">="
    "+" "-" "*" "/" "%" "+=" "-=" "*=" "/=" "%=" "&" "|" "^" "~" "<<" ">>" "++" "--"))
(protocol_function_declaration name: (simple_identifier) @name) @declaration.method
((function_declaration name: _ @name) @definition.function
  (#kind-is? @name simple_identifier custom_operator bang "==" "!=" "===" "!==" "<" ">" "<=" ">="
    "+" "-" "*" "/" "%" "+=" "-=" "*=" "/=" "%=" "&" "|" "^" "~" "<<" ">>" "++" "--"))

; Stored and computed properties of types, and protocol property requirements.
((property_declaration name: (_ bound_identifier: (simple_identifier) @name) @_pattern) @definition.property
  (#parent-is? @definition.property class_body enum_class_body)
  (#kind-is? @_pattern pattern))
((protocol_property_declaration name: (_ bound_identifier: (simple_identifier) @name) @_pattern) @definition.property
  (#kind-is? @_pattern pattern))

; Top-level `let` is a constant, `var` a variable.
((property_declaration
   (value_binding_pattern mutability: "let")
   name: (_ bound_identifier: (simple_identifier) @name) @_pattern) @definition.constant
  (#parent-is? @definition.constant source_file)
  (#kind-is? @_pattern pattern))
((property_declaration
   (value_binding_pattern mutability: "var")
   name: (_ bound_identifier: (simple_identifier) @name) @_pattern) @definition.variable
  (#parent-is? @definition.variable source_file)
  (#kind-is? @_pattern pattern))

; References, for the call graph.
((call_expression [(simple_identifier) @name
                    (navigation_expression suffix: (_ suffix: (simple_identifier) @name) @_suffix)]) @reference.call
  (#kind-is? @_suffix navigation_suffix))

; Imports, for the symbol graph: the module or path as written.
(import_declaration (identifier) @name) @reference.import
