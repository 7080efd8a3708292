//! A regex over one line with its newline, as git's `-G` runs its regex: POSIX `REG_NEWLINE`,
//! where `^` and `$` hold around the newline too, `.` and a bracketed negation (`[^;]`) never
//! match it, and a class that holds it (`\s`, `[[:space:]]`, `\W`) does. So `^$`, `\s$` and
//! `\W$` match every line git prints, as they do in git (tried with git 2.47 on glibc).

use regex_syntax::ast::{Ast, ClassBracketed, ClassSet, ClassSetItem, ClassSetUnion, Literal, LiteralKind, Span};

/// Rewrites every bracketed negation of `ast` (`[^X]`) so that it does not match a newline.
pub fn negations_without_newline(ast: &mut Ast) {
    match ast {
        Ast::ClassBracketed(class) => bracketed(class),
        Ast::Repetition(rep) => negations_without_newline(&mut rep.ast),
        Ast::Group(group) => negations_without_newline(&mut group.ast),
        Ast::Alternation(alt) => alt.asts.iter_mut().for_each(negations_without_newline),
        Ast::Concat(concat) => concat.asts.iter_mut().for_each(negations_without_newline),
        _ => {}
    }
}

/// A newline, as a class item.
fn newline(span: Span) -> ClassSetItem {
    ClassSetItem::Literal(Literal { span, kind: LiteralKind::Verbatim, c: '\n' })
}

/// A bracketed class: a negated one, `[^X]`, becomes `[^[X]\n]`; classes nested in it are
/// rewritten alike.
fn bracketed(class: &mut ClassBracketed) {
    set(&mut class.kind);
    if class.negated {
        let span = class.span;
        let inner = std::mem::replace(&mut class.kind, ClassSet::Item(ClassSetItem::Empty(span)));
        let positive = ClassSetItem::Bracketed(Box::new(ClassBracketed { span, negated: false, kind: inner }));
        class.kind = ClassSet::Item(ClassSetItem::Union(ClassSetUnion { span, items: vec![positive, newline(span)] }));
    }
}

fn set(set_: &mut ClassSet) {
    match set_ {
        ClassSet::Item(item) => set_item(item),
        ClassSet::BinaryOp(op) => {
            set(&mut op.lhs);
            set(&mut op.rhs);
        }
    }
}

fn set_item(item: &mut ClassSetItem) {
    match item {
        ClassSetItem::Bracketed(class) => bracketed(class),
        ClassSetItem::Union(union) => union.items.iter_mut().for_each(set_item),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use crate::query::Matcher;

    /// Each verdict as git 2.47's `log -G` gave it for a commit adding the line.
    #[test]
    fn lines_match_as_in_git() {
        let cases: [(&str, &[u8], bool); 13] = [
            ("^$", b"foo\n", true),
            (r"\s$", b"foo\n", true),
            (r"\W$", b"abc\n", true),
            ("[[:space:]]$", b"a\n", true),
            (r"a\s*$", b"a\n", true),
            (r"a\s", b"a\n", true),
            ("[^;]$", b"foo;\n", false),
            (r";\S", b"a;\n", false),
            (".$", b"\n", false),
            ("a[^x]", b"a\n", false),
            ("^b", b"a\n", false),
            ("[^a]", b"a\n", false),
            ("a.", b"a\n", false),
        ];
        for (pattern, line, expected) in cases {
            let matcher = Matcher::diff_lines(pattern, false).unwrap();
            assert_eq!(matcher.is_match(line), expected, "{pattern} on {:?}", String::from_utf8_lossy(line));
        }
    }
}
