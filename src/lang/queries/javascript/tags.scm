; JavaScript definitions.

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (identifier) @name) @definition.class

; Class members: the constructor, methods (getters, setters, generators, private `#m`) and
; fields, which are properties unless they hold a function.
(class_body
  (method_definition
    name: (property_identifier) @name
    (#eq? @name "constructor")) @definition.constructor)
(class_body (method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.method)
(field_definition
  property: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.method
(field_definition property: [(property_identifier) (private_property_identifier)] @name) @definition.property

; Module-level bindings, exported or not: a function or class value makes a function or class,
; `const` a constant, `let` and `var` a variable.
(program
  [(lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]))
   (variable_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]))
   (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)])))
   (export_statement declaration: (variable_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)])))] @definition.function)
(program
  [(lexical_declaration (variable_declarator name: (identifier) @name value: (class)))
   (variable_declaration (variable_declarator name: (identifier) @name value: (class)))
   (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name value: (class))))
   (export_statement declaration: (variable_declaration (variable_declarator name: (identifier) @name value: (class))))] @definition.class)
(program
  [(lexical_declaration kind: "const" (variable_declarator name: (identifier) @name))
   (export_statement declaration: (lexical_declaration kind: "const" (variable_declarator name: (identifier) @name)))] @definition.constant)
(program
  [(lexical_declaration kind: "let" (variable_declarator name: (identifier) @name))
   (variable_declaration (variable_declarator name: (identifier) @name))
   (export_statement declaration: (lexical_declaration kind: "let" (variable_declarator name: (identifier) @name)))
   (export_statement declaration: (variable_declaration (variable_declarator name: (identifier) @name)))] @definition.variable)

; `Foo.prototype.bar = function () {}` defines a method of `Foo`.
(program
  (expression_statement
    (assignment_expression
      left: (member_expression
              object: (member_expression
                        object: (identifier) @context
                        property: (property_identifier) @_prototype)
              property: (property_identifier) @name)
      right: [(function_expression) (arrow_function)])) @definition.method
  (#eq? @_prototype "prototype"))

; CommonJS: `exports.f = function () {}` and `module.exports.f = () => {}` define functions.
(program
  (expression_statement
    (assignment_expression
      left: (member_expression
              object: [(identifier) @_exports
                       (member_expression
                         object: (identifier) @_module
                         property: (property_identifier) @_exports)]
              property: (property_identifier) @name)
      right: [(function_expression) (arrow_function)])) @definition.function
  (#eq? @_exports "exports")
  (#eq? @_module "module"))

; References, for the call graph.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (member_expression property: (property_identifier) @name)) @reference.call
(new_expression constructor: (identifier) @name) @reference.class
