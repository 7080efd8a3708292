; go definitions: to be written.
