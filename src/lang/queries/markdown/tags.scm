; markdown definitions: to be written.
