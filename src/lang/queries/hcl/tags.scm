; hcl definitions: to be written.
