; groovy definitions: to be written.
