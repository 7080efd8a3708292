; toml definitions: to be written.
