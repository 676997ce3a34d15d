package files

// oNoFollow: Windows has no O_NOFOLLOW; a caller that must not follow a
// link checks with Lstat first (copyFile's source was Lstat'ed).
const oNoFollow = 0
