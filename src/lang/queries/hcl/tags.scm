; HCL and Terraform definitions: the top-level blocks of a file, named by their labels.
; `resource "aws_instance" "web"` is `web` qualified by its type: `aws_instance.web`.

(config_file (body
  (block . (identifier) @_type . (_) @context . (_) @name . (block_start))
  @definition.resource
  (#eq? @_type "resource")))
(config_file (body
  (block . (identifier) @_type . (_) @context . (_) @name . (block_start))
  @definition.data
  (#eq? @_type "data")))
(config_file (body
  (block . (identifier) @_type . (_) @name . (block_start))
  @definition.variable
  (#eq? @_type "variable")))
(config_file (body
  (block . (identifier) @_type . (_) @name . (block_start))
  @definition.output
  (#eq? @_type "output")))
(config_file (body
  (block . (identifier) @_type . (_) @name . (block_start))
  @definition.module
  (#eq? @_type "module")))

; A provider with an `alias` is known by `<name>.<alias>`.
(config_file (body
  (block . (identifier) @_type . (_) @context . (block_start)
    (body (attribute (identifier) @_alias (expression (literal_value (string_lit) @name)))))
  @definition.provider
  (#eq? @_type "provider")
  (#eq? @_alias "alias")))
(config_file (body
  (block . (identifier) @_type . (_) @name . (block_start) (body) @_body)
  @definition.provider
  (#eq? @_type "provider")
  (#not-match? @_body "(^|\n)[ \t]*alias[ \t]*=")))
(config_file (body
  (block . (identifier) @_type . (_) @name . (block_start) . (block_end))
  @definition.provider
  (#eq? @_type "provider")))

; `locals { x = ... }` defines the variables `local.x`.
(config_file (body
  (block . (identifier) @_type
    (body (attribute (identifier) @name) @definition.variable))
  (#eq? @_type "locals")))

; Any other top-level block: named by its last label, or by its type when it has none.
(config_file (body
  (block . (identifier) @_type . (_) @context . (_) @name . (block_start))
  @definition.block
  (#not-any-of? @_type "provider" "locals")))
(config_file (body
  (block . (identifier) @_type . (_) @name . (block_start))
  @definition.block
  (#not-any-of? @_type "provider" "locals")))
(config_file (body
  (block . (identifier) @name . (block_start))
  @definition.block
  (#not-any-of? @name "provider" "locals")))

; Top-level attributes (`.tfvars` values, settings of other HCL files) are keys.
(config_file (body (attribute (identifier) @name) @definition.key))

; References: `var.x`, `local.x`, `module.x`, `data.t.n`, `t.n`.
(expression (variable_expr (identifier) @name)) @reference.variable
