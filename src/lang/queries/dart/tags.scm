; dart definitions: to be written.
