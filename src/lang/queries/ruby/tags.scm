; Ruby definitions.
;
; Compiling a query, tree-sitter analyses every named node that holds another against the
; parse states of the grammar it can occur in: the nodes inside a pattern's outermost one are
; wildcards (`(_ ...)`, which tree-sitter does not analyse) whose kinds the extractor checks
; (`#kind-is?`), as it checks where a pattern's node sits (`#parent-is?`).

; Modules and classes; `class A::B` is `B` qualified by `A`.
(module name: (constant) @name) @definition.module
((module name: (_ scope: (_) @context name: (_) @name) @_scope) @definition.module
  (#kind-is? @_scope scope_resolution))
(class name: (constant) @name) @definition.class
((class name: (_ scope: (_) @context name: (_) @name) @_scope) @definition.class
  (#kind-is? @_scope scope_resolution))

; `Point = Struct.new(:x, :y) do ... end` and `Point = Class.new(Base)` define classes.
((assignment
   left: (constant) @name
   right: (_ receiver: (constant) @_receiver method: (identifier) @_new) @_call) @definition.class
  (#any-of? @_receiver "Struct" "Class" "Data")
  (#any-of? @_new "new" "define")
  (#kind-is? @_call call))
((assignment
   left: (_ scope: (_) @context name: (constant) @name) @_scope
   right: (_ receiver: (constant) @_receiver method: (identifier) @_new) @_call) @definition.class
  (#any-of? @_receiver "Struct" "Class" "Data")
  (#any-of? @_new "new" "define")
  (#kind-is? @_scope scope_resolution) (#kind-is? @_call call))
((assignment
   left: (constant) @name
   right: (_ receiver: (constant) @_receiver method: (identifier) @_new) @_call) @definition.module
  (#eq? @_receiver "Module")
  (#eq? @_new "new")
  (#kind-is? @_call call))

; A `def` at the top of a file is a function; anywhere else it belongs to a class or module.
((method name: (_) @name) @definition.function
  (#parent-is? @definition.function program))
(method name: (_) @name) @definition.method
(singleton_method name: (_) @name) @definition.method
(alias name: (_) @name) @definition.method

; Constants assigned in a file, class or module body (never inside a method, where Ruby
; forbids it).
(assignment left: (constant) @name) @definition.constant
((assignment left: (_ scope: (_) @context name: (constant) @name) @_scope) @definition.constant
  (#kind-is? @_scope scope_resolution))

; References.
(call method: (identifier) @name) @reference.call

; Imports, for the symbol graph: the module or path as written.
((call method: (identifier) @_m arguments: (_ . (string) @name) @_arguments) @reference.import
  (#any-of? @_m "require" "require_relative" "load")
  (#kind-is? @_arguments argument_list))
