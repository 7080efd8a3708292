; sql definitions: to be written.
