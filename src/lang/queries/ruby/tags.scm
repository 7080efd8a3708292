; Ruby definitions.

; Modules and classes; `class A::B` is `B` qualified by `A`.
(module name: (constant) @name) @definition.module
(module name: (scope_resolution scope: (_) @context name: (_) @name)) @definition.module
(class name: (constant) @name) @definition.class
(class name: (scope_resolution scope: (_) @context name: (_) @name)) @definition.class

; `Point = Struct.new(:x, :y) do ... end` and `Point = Class.new(Base)` define classes.
(assignment
  left: (constant) @name
  right: (call receiver: (constant) @_receiver method: (identifier) @_new)
  (#any-of? @_receiver "Struct" "Class" "Data")
  (#any-of? @_new "new" "define")) @definition.class
(assignment
  left: (scope_resolution scope: (_) @context name: (constant) @name)
  right: (call receiver: (constant) @_receiver method: (identifier) @_new)
  (#any-of? @_receiver "Struct" "Class" "Data")
  (#any-of? @_new "new" "define")) @definition.class
(assignment
  left: (constant) @name
  right: (call receiver: (constant) @_receiver method: (identifier) @_new)
  (#eq? @_receiver "Module")
  (#eq? @_new "new")) @definition.module

; A `def` at the top of a file is a function; anywhere else it belongs to a class or module.
(program (method name: (_) @name) @definition.function)
(method name: (_) @name) @definition.method
(singleton_method name: (_) @name) @definition.method
(alias name: (_) @name) @definition.method

; Constants assigned in a file, class or module body (never inside a method, where Ruby
; forbids it).
(assignment left: (constant) @name) @definition.constant
(assignment left: (scope_resolution scope: (_) @context name: (constant) @name)) @definition.constant

; References.
(call method: (identifier) @name) @reference.call

; Imports, for the symbol graph: the module or path as written.
((call method: (identifier) @_m arguments: (argument_list . (string) @name)) @reference.import
  (#any-of? @_m "require" "require_relative" "load"))
