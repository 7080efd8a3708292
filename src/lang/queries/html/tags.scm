; html definitions: to be written.
