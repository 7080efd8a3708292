; c_sharp definitions: to be written.
