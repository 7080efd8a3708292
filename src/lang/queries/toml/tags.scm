; TOML definitions: top-level keys, `[table]` headers and `[[array.of.tables]]` headers.

(document
  (pair [(bare_key) (quoted_key) (dotted_key)] @name) @definition.key)

(table [(bare_key) (quoted_key) (dotted_key)] @name) @definition.key

(table_array_element [(bare_key) (quoted_key) (dotted_key)] @name) @definition.key
