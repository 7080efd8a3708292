; Go definitions. Only package-level declarations are symbols: the types, functions, methods,
; constants and variables of a file, with the fields and methods of its types.

(source_file (function_declaration name: (identifier) @name) @definition.function)

; A method is qualified by its receiver's type (`Server.Run`), pointer or generic.
(source_file
  (method_declaration
    receiver: (parameter_list
                (parameter_declaration
                  type: [(type_identifier) @context
                         (pointer_type (type_identifier) @context)
                         (generic_type type: (type_identifier) @context)
                         (pointer_type (generic_type type: (type_identifier) @context))]))
    name: (field_identifier) @name) @definition.method)

; Types: structs, interfaces, and every other named type or alias.
(source_file (type_declaration (type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct))
(source_file (type_declaration (type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface))
(source_file (type_declaration (type_spec name: (type_identifier) @name) @definition.type))
(source_file (type_declaration (type_alias name: (type_identifier) @name) @definition.type))

; Struct fields, named or embedded (an embedded field is named by its type).
(source_file
  (type_declaration
    (type_spec
      type: (struct_type
              (field_declaration_list
                (field_declaration name: (field_identifier) @name) @definition.field)))))
(source_file
  (type_declaration
    (type_spec
      type: (struct_type
              (field_declaration_list
                (field_declaration
                  !name
                  type: [(type_identifier) @name
                         (qualified_type name: (type_identifier) @name)
                         (generic_type type: (type_identifier) @name)
                         (generic_type type: (qualified_type name: (type_identifier) @name))]) @definition.field)))))

; Interface methods have no body: they are declarations.
(source_file
  (type_declaration
    (type_spec
      type: (interface_type (method_elem name: (field_identifier) @name) @declaration.method))))

; Package-level constants and variables.
(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant) (#not-eq? @name "_"))
; `var _ = ...` names nothing.
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.variable) (#not-eq? @name "_"))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name) @definition.variable)) (#not-eq? @name "_"))

; References, for the symbol graph: calls, imports (the package path), composite literals, type
; names, names passed as arguments and selector reads (`pkg.Name`, `x.field`). Parameters,
; receivers, `:=` and `var` bindings inside functions, and range variables are local.
(call_expression
  function: [(identifier) @name
             (parenthesized_expression (identifier) @name)
             (selector_expression field: (field_identifier) @name)
             (parenthesized_expression (selector_expression field: (field_identifier) @name))
             (generic_type type: (type_identifier) @name)]) @reference.call
(composite_literal type: [(type_identifier) @name (qualified_type name: (type_identifier) @name)]) @reference.class
(import_spec path: (interpreted_string_literal) @name) @reference.import
(import_spec name: (package_identifier) @reference.none)
(type_identifier) @name @reference.type
(argument_list (identifier) @name) @reference.name
(selector_expression field: (field_identifier) @name) @reference.name
(keyed_element . (literal_element (identifier) @reference.none))
(parameter_declaration name: (identifier) @local.definition)
(variadic_parameter_declaration name: (identifier) @local.definition)
(short_var_declaration left: (expression_list (identifier) @local.definition))
(var_spec name: (identifier) @local.definition)
(range_clause left: (expression_list (identifier) @local.definition))
(type_parameter_declaration name: (identifier) @local.definition)
