; cpp definitions: to be written.
