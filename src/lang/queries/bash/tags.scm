; bash definitions: to be written.
