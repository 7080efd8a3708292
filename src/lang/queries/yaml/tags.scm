; YAML definitions: the top-level keys of each document of the stream.

(stream
  (document
    (block_node
      (block_mapping
        (block_mapping_pair key: (_) @name) @definition.key))))

; Values that are themselves navigation targets: GitHub Actions `jobs` (targets of `needs:`)
; and Compose `services` (targets of `depends_on:`, `links:`, `extends:`).
(stream
  (document
    (block_node
      (block_mapping
        (block_mapping_pair
          key: (flow_node) @_key
          value: (block_node
                   (block_mapping
                     (block_mapping_pair key: (_) @name) @definition.key)))
        (#match? @_key "^[\"']?(jobs|services)[\"']?$")))))
