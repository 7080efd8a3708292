; swift definitions: to be written.
