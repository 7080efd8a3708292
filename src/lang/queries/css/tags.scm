; css definitions: to be written.
