; xml definitions: to be written.
