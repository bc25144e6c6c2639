import { Anchor, type AnchorProps, Button, type ButtonProps } from '@mantine/core';
import { createLink, type LinkComponent } from '@tanstack/react-router';
import { type AnchorHTMLAttributes, forwardRef } from 'react';

/**
 * Mantine's Anchor and Button as typed router links (`to`, `params` and `search` checked against
 * the route tree), following TanStack Router's `createLink` recipe.
 */

type AnchorBaseProps = Omit<AnchorProps, 'href'> & Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'color' | 'style'>;
const AnchorBase = forwardRef<HTMLAnchorElement, AnchorBaseProps>((props, ref) => <Anchor ref={ref} {...props} />);
const CreatedAnchorLink = createLink(AnchorBase);
export const AnchorLink: LinkComponent<typeof AnchorBase> = (props) => <CreatedAnchorLink preload="intent" {...props} />;

type ButtonBaseProps = Omit<ButtonProps, 'href'> & Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'color' | 'style'>;
const ButtonBase = forwardRef<HTMLAnchorElement, ButtonBaseProps>((props, ref) => <Button ref={ref} component="a" {...props} />);
const CreatedButtonLink = createLink(ButtonBase);
export const ButtonLink: LinkComponent<typeof ButtonBase> = (props) => <CreatedButtonLink preload="intent" {...props} />;
