package escape

// backslashEscaped is false on Windows: a backslash is the path separator
// and no name holds one, so paths print in the system's own form
// (C:\ws\lf.txt, as the other tools print them), and "\n" in a path is a
// separator and an n, since Windows names cannot hold control characters.
const backslashEscaped = false
