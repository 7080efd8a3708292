; lua definitions: to be written.
