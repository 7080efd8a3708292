; ruby definitions: to be written.
