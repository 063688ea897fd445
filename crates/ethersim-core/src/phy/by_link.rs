//! A table of what a link mechanism keeps beside the links rather than in them, by
//! link: a link without the mechanism carries nothing of it but an empty slot.

use crate::ids::LinkId;

/// A mechanism's state of some links, by link (boxed: most links have none).
#[derive(Debug)]
pub struct ByLink<T> {
    slots: Vec<Option<Box<T>>>,
}

impl<T> Default for ByLink<T> {
    fn default() -> Self {
        ByLink { slots: Vec::new() }
    }
}

impl<T> ByLink<T> {
    /// Gives `link` the state `value` (replacing any it had).
    pub fn insert(&mut self, link: LinkId, value: T) {
        let i = link.index();
        if self.slots.len() <= i {
            self.slots.resize_with(i + 1, || None);
        }
        self.slots[i] = Some(Box::new(value));
    }

    /// `link`'s state, if it has one.
    #[inline]
    pub fn get(&self, link: LinkId) -> Option<&T> {
        self.slots.get(link.index()).and_then(Option::as_deref)
    }

    /// Every link's state with its link, in link order.
    pub fn iter(&self) -> impl Iterator<Item = (LinkId, &T)> {
        self.slots.iter().enumerate().filter_map(|(i, s)| Some((LinkId(i as u32), s.as_deref()?)))
    }

    /// `link`'s state, if it has one, to change.
    #[inline]
    pub fn get_mut(&mut self, link: LinkId) -> Option<&mut T> {
        self.slots.get_mut(link.index()).and_then(Option::as_deref_mut)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_has_what_was_inserted_for_it_and_no_other_does() {
        let mut t = ByLink::default();
        t.insert(LinkId(3), 'a');
        t.insert(LinkId(1), 'b');
        t.insert(LinkId(3), 'c');
        assert_eq!((t.get(LinkId(3)), t.get(LinkId(1))), (Some(&'c'), Some(&'b')));
        assert_eq!((t.get(LinkId(0)), t.get(LinkId(7))), (None, None));
        *t.get_mut(LinkId(1)).unwrap() = 'd';
        assert_eq!(t.get(LinkId(1)), Some(&'d'));
        assert_eq!(t.iter().collect::<Vec<_>>(), [(LinkId(1), &'d'), (LinkId(3), &'c')]);
    }
}
