; JSON definitions: the top-level keys of the document.

(document
  (object
    (pair key: (string) @name) @definition.key))

; Values that are themselves navigation targets: npm `scripts` (`npm run <name>`) and
; JSON Schema `definitions` / `$defs` (targets of `$ref`).
(document
  (object
    (pair
      key: (string (string_content) @_key)
      value: (object (pair key: (string) @name) @definition.key))
    (#any-of? @_key "scripts" "definitions" "$defs")))
