; scala definitions: to be written.
