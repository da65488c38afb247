//! RFC 6570 URI templates of `#[resource(template = …)]`: the variables they name (each
//! must be a parameter), or what is wrong with them, checked at compile time.

/// The names of the variables of an RFC 6570 URI template (in order), or what is wrong
/// with it.
pub(super) fn template_variables(template: &str) -> Result<Vec<String>, String> {
    let mut names: Vec<String> = Vec::new();
    let mut rest = template;
    while let Some(start) = rest.find(['{', '}']) {
        if rest[start..].starts_with('}') {
            return Err(format!("unmatched `}}` in URI template `{template}`"));
        }
        let after = &rest[start + 1..];
        let end = after
            .find('}')
            .ok_or_else(|| format!("unclosed `{{` in URI template `{template}`"))?;
        let body = &after[..end];
        if body.contains('{') {
            return Err(format!("unclosed `{{` in URI template `{template}`"));
        }
        rest = &after[end + 1..];
        let list = match body.chars().next() {
            Some('+' | '#' | '.' | '/' | ';' | '?' | '&') => &body[1..],
            Some('=' | ',' | '!' | '@' | '|') => {
                return Err(format!("reserved operator in `{{{body}}}`"));
            }
            Some(_) => body,
            None => return Err(format!("empty expression `{{}}` in `{template}`")),
        };
        for spec in list.split(',') {
            let name = if let Some(name) = spec.strip_suffix('*') {
                name
            } else if let Some((name, n)) = spec.split_once(':') {
                if !n.parse::<usize>().is_ok_and(|n| (1..10000).contains(&n)) {
                    return Err(format!(
                        "bad prefix length `:{n}` in `{{{body}}}` (1 to 9999)"
                    ));
                }
                name
            } else {
                spec
            };
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '%'))
            {
                return Err(format!("bad variable name `{name}` in `{{{body}}}`"));
            }
            if names.iter().any(|n| n == name) {
                return Err(format!(
                    "variable `{name}` appears twice in URI template `{template}`"
                ));
            }
            names.push(name.to_owned());
        }
    }
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_variable_extraction() {
        assert_eq!(
            template_variables("test://template/{id}/data").unwrap(),
            ["id"]
        );
        assert_eq!(
            template_variables("file:///{+path}{?a,b}{&c}{#frag}{.ext}{/seg*}{;p:3}").unwrap(),
            ["path", "a", "b", "c", "frag", "ext", "seg", "p"]
        );
        assert_eq!(
            template_variables("test://static").unwrap(),
            Vec::<String>::new()
        );
        assert!(
            template_variables("x://{id")
                .unwrap_err()
                .contains("unclosed")
        );
        assert!(
            template_variables("x://id}")
                .unwrap_err()
                .contains("unmatched")
        );
        assert!(template_variables("x://{}").unwrap_err().contains("empty"));
        assert!(
            template_variables("x://{=a}")
                .unwrap_err()
                .contains("reserved")
        );
        assert!(
            template_variables("x://{a}/{a}")
                .unwrap_err()
                .contains("twice")
        );
        assert!(
            template_variables("x://{a b}")
                .unwrap_err()
                .contains("bad variable")
        );
        assert!(
            template_variables("x://{a:0}")
                .unwrap_err()
                .contains("prefix")
        );
    }
}
